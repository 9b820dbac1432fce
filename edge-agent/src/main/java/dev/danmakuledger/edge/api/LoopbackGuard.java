package dev.danmakuledger.edge.api;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * Keeps web pages out of the local API. A loopback bind stops other machines, but not a browser on
 * this one: a page can post a cross-site form ({@code text/plain} bodies need no CORS preflight,
 * Fetch standard "CORS-safelisted request-header") or rebind its own DNS name to 127.0.0.1 and talk
 * to the agent as a same-origin peer. So every request must name a loopback {@code Host} (an IP
 * literal in 127.0.0.0/8, the IPv6 loopback literal {@code [::1]} or {@code localhost}, with or
 * without a port; a DNS name is never resolved), may carry an {@code Origin} only if it is the
 * agent's own loopback origin (RFC 6454 serialisation), and a capture must be {@code
 * application/json}. See docs/edge-agent.md "Local ingest API".
 */
final class LoopbackGuard {
  private final List<String> ownOrigins;

  /**
   * @param port the port the API is bound to
   */
  LoopbackGuard(int port) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port: got " + port + ", want 1..65535");
    }
    this.ownOrigins =
        List.of("http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port);
  }

  /**
   * Why a request target that is not in origin-form must be refused, or null for {@code /path}. The
   * local API is no proxy: an absolute-form target ({@code POST http://evil.com/v1/danmaku}, RFC
   * 9112 §3.2.2) would name a host other than the checked {@code Host} header, so it is refused
   * rather than interpreted.
   */
  static Problem absoluteForm(URI target) {
    if (target.getScheme() == null && target.getRawAuthority() == null) {
      return null;
    }
    return Problem.of(
        ErrorCode.MALFORMED_REQUEST,
        "request target: got "
            + quote(target.toString())
            + ", want origin-form such as /v1/danmaku (the local API is not a proxy)");
  }

  /**
   * Why a request with these {@code Host} and {@code Origin} header values must be refused, or null
   * if it may proceed.
   */
  Problem refusal(List<String> hosts, List<String> origins) {
    if (hosts == null || hosts.size() != 1) {
      return forbidden(
          "Host header: got "
              + (hosts == null ? 0 : hosts.size())
              + " values, want exactly one loopback host (127.0.0.1, localhost or [::1])");
    }
    String host = hosts.get(0);
    if (!isLoopbackHost(host)) {
      return forbidden(
          "Host header: got "
              + quote(host)
              + ", want a loopback host (127.0.0.1, localhost or [::1]); the local API does not"
              + " answer other names");
    }
    if (origins != null) {
      for (String origin : origins) {
        if (!ownOrigins.contains(origin.trim().toLowerCase(Locale.ROOT))) {
          return forbidden(
              "Origin header: got "
                  + quote(origin)
                  + ", want none or one of "
                  + ownOrigins
                  + "; web pages may not post to the local API");
        }
      }
    }
    return null;
  }

  /** The problem for a capture whose {@code Content-Type} is not JSON, or null if it is. */
  static Problem unsupportedMediaType(String contentType) {
    if (isJson(contentType)) {
      return null;
    }
    return Problem.of(
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        "Content-Type: got "
            + (contentType == null ? "none" : quote(contentType))
            + ", want application/json (optionally ; charset=utf-8)");
  }

  /**
   * {@code application/json}, optionally with a {@code charset=utf-8} parameter (RFC 8259 §8.1).
   */
  static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    String[] parts = contentType.split(";", -1);
    if (!parts[0].trim().equalsIgnoreCase("application/json")) {
      return false;
    }
    for (int i = 1; i < parts.length; i++) {
      String param = parts[i].trim();
      int eq = param.indexOf('=');
      if (eq < 0 || !param.substring(0, eq).trim().equalsIgnoreCase("charset")) {
        return false;
      }
      String value = param.substring(eq + 1).trim();
      if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
        value = value.substring(1, value.length() - 1);
      }
      if (!value.equalsIgnoreCase("utf-8")) {
        return false;
      }
    }
    return true;
  }

  /**
   * True for {@code localhost}, an IPv4 literal in 127.0.0.0/8 or {@code [::1]}, each optionally
   * followed by {@code :port}. Names are compared as text, never resolved.
   */
  static boolean isLoopbackHost(String host) {
    if (host == null) {
      return false;
    }
    String name = host.trim();
    String port = null;
    if (name.startsWith("[")) {
      int close = name.indexOf(']');
      if (close < 0) {
        return false;
      }
      String rest = name.substring(close + 1);
      if (!rest.isEmpty()) {
        if (!rest.startsWith(":")) {
          return false;
        }
        port = rest.substring(1);
      }
      name = name.substring(0, close + 1);
    } else {
      int colon = name.indexOf(':');
      if (colon >= 0) {
        port = name.substring(colon + 1);
        name = name.substring(0, colon);
      }
    }
    if (port != null && !isPort(port)) {
      return false;
    }
    return name.equalsIgnoreCase("localhost") || isLoopbackIpv6(name) || isLoopbackIpv4(name);
  }

  /**
   * A bracketed IPv6 literal of the loopback address ({@code [::1]}, {@code [0:0:0:0:0:0:0:1]}).
   * Only hex digits and colons are parsed, so no name is ever looked up.
   */
  private static boolean isLoopbackIpv6(String s) {
    if (s.length() < 4 || s.length() > 41 || !s.startsWith("[") || !s.endsWith("]")) {
      return false;
    }
    String inner = s.substring(1, s.length() - 1);
    for (int i = 0; i < inner.length(); i++) {
      char c = inner.charAt(i);
      boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!hex && c != ':') {
        return false;
      }
    }
    try {
      return InetAddress.getByName(inner) instanceof Inet6Address a && a.isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean isPort(String s) {
    if (s.isEmpty() || s.length() > 5) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    int p = Integer.parseInt(s);
    return p >= 1 && p <= 65535;
  }

  /** A dotted-quad literal of four decimal octets whose first is 127. */
  private static boolean isLoopbackIpv4(String s) {
    String[] octets = s.split("\\.", -1);
    if (octets.length != 4) {
      return false;
    }
    for (String o : octets) {
      if (o.isEmpty() || o.length() > 3 || (o.length() > 1 && o.charAt(0) == '0')) {
        return false;
      }
      for (int i = 0; i < o.length(); i++) {
        if (o.charAt(i) < '0' || o.charAt(i) > '9') {
          return false;
        }
      }
      if (Integer.parseInt(o) > 255) {
        return false;
      }
    }
    return octets[0].equals("127");
  }

  private static Problem forbidden(String detail) {
    return Problem.of(ErrorCode.FORBIDDEN, detail);
  }

  private static String quote(String s) {
    String shown = s.length() > 100 ? s.substring(0, 100) + "…" : s;
    return '"' + shown + '"';
  }
}
