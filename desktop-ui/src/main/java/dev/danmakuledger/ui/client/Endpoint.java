package dev.danmakuledger.ui.client;

import okhttp3.HttpUrl;

/**
 * Where the console talks to and with which admin token.
 *
 * @param baseUrl the sync server's base URL, e.g. {@code http://127.0.0.1:8080/}
 * @param token the bearer admin token, non-empty, without line breaks
 */
public record Endpoint(HttpUrl baseUrl, String token) {
  public Endpoint {
    if (baseUrl == null) {
      throw new IllegalArgumentException("got baseUrl=null, want an http(s) URL");
    }
    if (token == null || token.isBlank() || token.contains("\n") || token.contains("\r")) {
      throw new IllegalArgumentException(
          "got token "
              + (token == null ? "null" : "of length " + token.length())
              + ", want a non-empty single-line admin token");
    }
  }

  /**
   * Parses a server URL as typed by an operator.
   *
   * @throws IllegalArgumentException if it is not an http or https URL
   */
  public static Endpoint of(String url, String token) {
    HttpUrl parsed = url == null ? null : HttpUrl.parse(url.strip());
    if (parsed == null) {
      throw new IllegalArgumentException("server URL: got " + url + ", want http(s)://host:port");
    }
    return new Endpoint(parsed, token.strip());
  }
}
