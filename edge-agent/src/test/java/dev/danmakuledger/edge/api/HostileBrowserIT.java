package dev.danmakuledger.edge.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.Json;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a web page in a browser on the device can send to the local API: cross-site form posts
 * ({@code text/plain}, foreign {@code Origin}) and DNS-rebound requests (foreign {@code Host}). Raw
 * sockets, so every header is exactly what a browser would send. Each refused request must leave
 * the log unchanged.
 */
class HostileBrowserIT {
  private static final String KEY = "dev-1:alice:1700000000000:00112233445566778899aabb";
  private static final String BODY =
      "{\"idempotencyKey\":\"" + KEY + "\",\"room\":\"room-1\",\"user\":\"alice\",\"text\":\"hi\"}";

  @TempDir Path dir;
  private TestDevice device;
  private IngestServer server;
  private int port;
  private final ObjectMapper json = Json.mapper();

  @BeforeEach
  void start() throws Exception {
    device = TestDevice.create(dir, new MutableClock(Instant.parse("2026-04-01T00:00:00Z")));
    server =
        IngestServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            device.capture,
            device.store,
            TestDevice.UNBOUNDED);
    port = server.address().getPort();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    device.close();
  }

  private record Answer(int status, String contentType, String body) {}

  /** One HTTP/1.1 request with exactly these headers (null values are left out). */
  private Answer send(
      String method, String path, String host, String origin, String type, String body)
      throws Exception {
    StringBuilder req = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
    if (host != null) {
      req.append("Host: ").append(host).append("\r\n");
    }
    if (origin != null) {
      req.append("Origin: ").append(origin).append("\r\n");
    }
    if (type != null) {
      req.append("Content-Type: ").append(type).append("\r\n");
    }
    byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    if (body != null) {
      req.append("Content-Length: ").append(bytes.length).append("\r\n");
    }
    req.append("Connection: close\r\n\r\n");
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.write(bytes);
      out.flush();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      in.transferTo(got);
      String text = got.toString(StandardCharsets.UTF_8);
      int headerEnd = text.indexOf("\r\n\r\n");
      String head = text.substring(0, headerEnd);
      int status = Integer.parseInt(head.substring(9, 12));
      String contentType = "";
      for (String line : head.split("\r\n")) {
        if (line.toLowerCase().startsWith("content-type:")) {
          contentType = line.substring("content-type:".length()).trim();
        }
      }
      return new Answer(status, contentType, text.substring(headerEnd + 4));
    }
  }

  private Answer post(String host, String origin, String type) throws Exception {
    return send("POST", "/v1/danmaku", host, origin, type, BODY);
  }

  private String local() {
    return "127.0.0.1:" + port;
  }

  private void assertRefused(Answer a, int status, String code) throws Exception {
    assertEquals(status, a.status(), a.body());
    assertEquals(Problem.MEDIA_TYPE, a.contentType());
    JsonNode p = json.readTree(a.body());
    assertEquals(code, p.get("code").asText(), a.body());
    assertEquals(0, device.capture.logStatus().size(), "nothing may be captured");
    assertEquals(0, device.store.recordCount(), "nothing may be stored");
  }

  @Test
  void absoluteFormRequestTargetsAreRefusedAndCaptureNothing() throws Exception {
    for (String target :
        List.of(
            "http://evil.com/v1/danmaku",
            "http://" + local() + "/v1/danmaku",
            "//evil.com/v1/danmaku")) {
      Answer a = send("POST", target, local(), null, "application/json", BODY);
      assertRefused(a, 400, "malformed-request");
    }
    assertEquals(400, send("GET", "http://evil.com/v1/status", local(), null, null, null).status());
  }

  @Test
  void crossSiteFormPostIsRefusedAndCapturesNothing() throws Exception {
    assertRefused(post(local(), "http://evil.example", "text/plain"), 403, "forbidden");
  }

  @Test
  void textPlainWithoutOriginIs415() throws Exception {
    Answer a = post(local(), null, "text/plain");
    assertRefused(a, 415, "unsupported-media-type");
    assertTrue(json.readTree(a.body()).get("detail").asText().contains("application/json"));
  }

  @Test
  void formEncodedAndMissingContentTypeAre415() throws Exception {
    assertRefused(
        post(local(), null, "application/x-www-form-urlencoded"), 415, "unsupported-media-type");
    assertRefused(
        post(local(), null, "multipart/form-data; boundary=x"), 415, "unsupported-media-type");
    assertRefused(post(local(), null, null), 415, "unsupported-media-type");
    assertRefused(post(local(), null, "application/jsonp"), 415, "unsupported-media-type");
    assertRefused(
        post(local(), null, "application/json; charset=iso-8859-1"), 415, "unsupported-media-type");
  }

  @Test
  void foreignOriginWithJsonIs403() throws Exception {
    assertRefused(post(local(), "http://evil.example", "application/json"), 403, "forbidden");
    assertRefused(post(local(), "null", "application/json"), 403, "forbidden");
    assertRefused(
        post(local(), "http://127.0.0.1:" + (port + 1), "application/json"), 403, "forbidden");
    assertRefused(post(local(), "https://127.0.0.1:" + port, "application/json"), 403, "forbidden");
    assertRefused(
        post(local(), "http://localhost.evil.example:" + port, "application/json"),
        403,
        "forbidden");
  }

  @Test
  void reboundHostIs403() throws Exception {
    assertRefused(post("evil.example:" + port, null, "application/json"), 403, "forbidden");
    assertRefused(post("evil.example", null, "application/json"), 403, "forbidden");
    assertRefused(post("127.0.0.1.evil.example", null, "application/json"), 403, "forbidden");
    assertRefused(
        post("localhost.evil.example:" + port, null, "application/json"), 403, "forbidden");
    assertRefused(post("128.0.0.1:" + port, null, "application/json"), 403, "forbidden");
    assertRefused(post("[::2]:" + port, null, "application/json"), 403, "forbidden");
    assertRefused(post(local() + "x", null, "application/json"), 403, "forbidden");
  }

  @Test
  void reboundHostCannotReadTheStatusEither() throws Exception {
    Answer a = send("GET", "/v1/status", "evil.example:" + port, null, null, null);
    assertEquals(403, a.status(), a.body());
    Answer m = send("GET", "/metrics", "evil.example", null, null, null);
    assertEquals(403, m.status(), m.body());
  }

  @Test
  void missingHostIs403() throws Exception {
    Answer a = send("POST", "/v1/danmaku", null, null, "application/json", BODY);
    assertRefused(a, 403, "forbidden");
  }

  @Test
  void loopbackNamesAndOwnOriginsAreServed() throws Exception {
    assertEquals(
        201, post("localhost:" + port, "http://localhost:" + port, "application/json").status());
    Answer repeat =
        post("[::1]:" + port, "http://[::1]:" + port, "application/json; charset=UTF-8");
    assertEquals(200, repeat.status(), repeat.body());
    Answer noPort =
        post("127.0.0.1", "http://127.0.0.1:" + port, "Application/JSON;charset=\"utf-8\"");
    assertEquals(200, noPort.status(), noPort.body());
    Answer otherLoopback = post("127.1.2.3:" + port, null, "application/json");
    assertEquals(200, otherLoopback.status(), otherLoopback.body());
    assertEquals(1, device.capture.logStatus().size());
  }

  @Test
  void refusalsAreCountedInTheMetrics() throws Exception {
    post("evil.example", null, "application/json");
    post(local(), null, "text/plain");
    Answer m = send("GET", "/metrics", local(), null, null, null);
    assertEquals(200, m.status());
    assertTrue(m.body().contains("edge_api_responses_total{status=\"403\"} 1"), m.body());
    assertTrue(m.body().contains("edge_api_responses_total{status=\"415\"} 1"), m.body());
  }
}
