package dev.danmakuledger.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.testkit.TestDevice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

/** A small HTTP client over real sockets (java.net.http) for end-to-end tests. */
final class Api {
  static final ObjectMapper JSON = Json.mapper();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI base;
  private final String adminToken;

  Api(URI base, String adminToken) {
    this.base = base;
    this.adminToken = adminToken;
  }

  /** A reply: status, the Content-Type and selected headers, and the body. */
  record Reply(
      int status,
      String contentType,
      String replayed,
      String retryAfter,
      String body,
      HttpHeaders headers) {
    /** The first value of the response header {@code name}, or null. */
    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + body, e);
      }
    }

    String code() {
      return json().path("code").asText();
    }

    <T> T as(Class<T> type) {
      try {
        return JSON.readValue(body, type);
      } catch (IOException e) {
        throw new UncheckedIOException("not a " + type.getSimpleName() + ": " + body, e);
      }
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  Reply post(String path, Object body) {
    try {
      return postRaw(path, JSON.writeValueAsBytes(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Reply postRaw(String path, byte[] body) {
    return send(
        HttpRequest.newBuilder(base.resolve(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  /**
   * Enrolls {@code device} with {@code enrollToken}.
   *
   * @throws AssertionError unless the server answers 200
   */
  Reply enroll(TestDevice device, String enrollToken) {
    return expectOk(
        "enrolling " + device.id, post("/v1/devices", device.enrollRequest(enrollToken)));
  }

  /** A new device with a random id, enrolled with {@code enrollToken}. */
  TestDevice enrollNew(String enrollToken) {
    TestDevice d = TestDevice.create("dev-" + UUID.randomUUID().toString().substring(0, 8));
    enroll(d, enrollToken);
    return d;
  }

  /** Posts {@code batch} (a batch request, or any body a test sends instead) for {@code device}. */
  Reply batch(TestDevice device, Object batch) {
    return post("/v1/devices/" + device.id + "/batches", batch);
  }

  /**
   * Posts {@code batch} for {@code device} with {@code receiptCosigner} as its {@code
   * Danmaku-Receipt-Cosigner} header.
   */
  Reply batch(TestDevice device, Object batch, String receiptCosigner) {
    try {
      return send(
          HttpRequest.newBuilder(base.resolve("/v1/devices/" + device.id + "/batches"))
              .header("Content-Type", "application/json")
              .header("Danmaku-Receipt-Cosigner", receiptCosigner)
              .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(batch))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Posts {@code batch} for {@code device} and reads the answer.
   *
   * @throws AssertionError unless the server answers 200
   */
  BatchResponse sync(TestDevice device, Object batch) {
    return expectOk("a batch of " + device.id, batch(device, batch)).as(BatchResponse.class);
  }

  private static Reply expectOk(String what, Reply r) {
    if (r.status() != 200) {
      throw new AssertionError(what + ": got " + r + ", want 200");
    }
    return r;
  }

  Reply get(String path) {
    return send(HttpRequest.newBuilder(base.resolve(path)).GET());
  }

  Reply admin(String path) {
    return send(
        HttpRequest.newBuilder(base.resolve(path))
            .header("Authorization", "Bearer " + adminToken)
            .GET());
  }

  Reply adminPost(String path, Object body) {
    try {
      return send(
          HttpRequest.newBuilder(base.resolve(path))
              .header("Authorization", "Bearer " + adminToken)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Reply adminPostRaw(String path, byte[] body) {
    return send(
        HttpRequest.newBuilder(base.resolve(path))
            .header("Authorization", "Bearer " + adminToken)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  private Reply send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> r =
          http.send(
              request.timeout(Duration.ofSeconds(60)).build(),
              HttpResponse.BodyHandlers.ofString());
      return new Reply(
          r.statusCode(),
          r.headers().firstValue("Content-Type").orElse(""),
          r.headers().firstValue("Idempotent-Replayed").orElse(null),
          r.headers().firstValue("Retry-After").orElse(null),
          r.body(),
          r.headers());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpClient client() {
    return http;
  }

  URI base() {
    return base;
  }
}
