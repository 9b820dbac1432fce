package dev.danmakuledger.edge.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.Json;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local ingest API end to end over a real loopback socket. */
class IngestServerIT {
  private static final String KEY = "dev-1:alice:1700000000000:00112233445566778899aabb";

  @TempDir Path dir;
  private TestDevice device;
  private IngestServer server;
  private final HttpClient http = HttpClient.newHttpClient();
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
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    device.close();
  }

  private HttpResponse<String> post(String body, String headerKey) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://" + server.hostPort() + "/v1/danmaku"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (headerKey != null) {
      b.header("Idempotency-Key", headerKey);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://" + server.hostPort() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String body(String key, String text) {
    return "{"
        + (key == null ? "" : "\"idempotencyKey\":\"" + key + "\",")
        + "\"room\":\"room-1\",\"user\":\"alice\",\"text\":\""
        + text
        + "\",\"playbackMs\":1500,\"color\":255}";
  }

  private JsonNode problem(HttpResponse<String> r, int status, String code) throws Exception {
    assertEquals(status, r.statusCode(), r.body());
    assertEquals(Problem.MEDIA_TYPE, r.headers().firstValue("Content-Type").orElse(""));
    JsonNode p = json.readTree(r.body());
    assertEquals(code, p.get("code").asText(), r.body());
    assertEquals(status, p.get("status").asInt());
    assertEquals("https://danmaku-ledger.dev/problems/" + code, p.get("type").asText());
    return p;
  }

  @Test
  void newCaptureIs201AndRepeatIs200WithTheOriginalAck() throws Exception {
    HttpResponse<String> first = post(body(KEY, "hello 弹幕"), null);
    assertEquals(201, first.statusCode(), first.body());
    JsonNode ack = json.readTree(first.body());
    assertEquals(0, ack.get("index").asLong());
    assertEquals(KEY, ack.get("idempotencyKey").asText());

    HttpResponse<String> again = post(body(KEY, "hello 弹幕"), null);
    assertEquals(200, again.statusCode(), again.body());
    JsonNode repeat = json.readTree(again.body());
    assertEquals(0, repeat.get("index").asLong());
    assertTrue(repeat.get("repeat").asBoolean());
    assertEquals(ack.get("capturedAt").asLong(), repeat.get("capturedAt").asLong());
    assertEquals(1, device.capture.logStatus().size());
  }

  @Test
  void keyMayComeInTheHeader() throws Exception {
    HttpResponse<String> r = post(body(null, "via header"), KEY);
    assertEquals(201, r.statusCode(), r.body());
  }

  @Test
  void conflictIs422() throws Exception {
    post(body(KEY, "original"), null);
    JsonNode p = problem(post(body(KEY, "changed"), null), 422, "idempotency-conflict");
    assertEquals(0, p.get("originalIndex").asLong());
    assertTrue(p.get("detail").asText().contains("different message"));
  }

  @Test
  void missingKeyIs400() throws Exception {
    problem(post(body(null, "no key"), null), 400, "missing-idempotency-key");
  }

  @Test
  void malformedKeyIs400NamingThePart() throws Exception {
    JsonNode p =
        problem(
            post(body("dev-1:alice:17:00112233445566778899", "x"), null),
            400,
            "malformed-idempotency-key");
    assertEquals("unixMillis", p.get("part").asText());
  }

  @Test
  void keyOfAnotherDeviceIs400() throws Exception {
    JsonNode p =
        problem(
            post(body("dev-9:alice:1700000000000:00112233445566778899", "x"), null),
            400,
            "invalid-field");
    assertEquals("idempotencyKey", p.get("field").asText());
  }

  @Test
  void dotRoomsAreRefusedAtCaptureNamingTheRoom() throws Exception {
    for (String room : new String[] {".", ".."}) {
      JsonNode p =
          problem(
              post(body(KEY, "x").replace("\"room-1\"", "\"" + room + "\""), null),
              400,
              "invalid-field");
      assertEquals("room", p.get("field").asText());
      assertTrue(p.get("detail").asText().contains("dot-segments"), p.toString());
    }
    String dotted = body(KEY, "x").replace("\"room-1\"", "\"...\"");
    assertEquals(201, post(dotted, null).statusCode(), "three dots name an ordinary room");
  }

  @Test
  void headerAndBodyKeysMustAgree() throws Exception {
    problem(
        post(body(KEY, "x"), "dev-1:alice:1700000000001:00112233445566778899"),
        400,
        "malformed-idempotency-key");
  }

  @Test
  void malformedJsonIs400() throws Exception {
    problem(post("{\"idempotencyKey\": ", null), 400, "malformed-json");
    problem(post("[1,2]", null), 400, "malformed-json");
    problem(post(body(KEY, "x").replace("}", ",\"unknown\":1}"), null), 400, "malformed-json");
  }

  @Test
  void invalidFieldIs400NamingTheField() throws Exception {
    JsonNode p =
        problem(
            post(body(KEY, "x").replace("\"color\":255", "\"color\":-1"), null),
            400,
            "invalid-field");
    assertEquals("color", p.get("field").asText());
    JsonNode empty = problem(post(body(KEY, ""), null), 400, "invalid-field");
    assertEquals("text", empty.get("field").asText());
  }

  @Test
  void oversizedBodyIs413() throws Exception {
    String big = body(KEY, "x".repeat(IngestServer.MAX_BODY_BYTES + 100));
    problem(post(big, null), 413, "body-too-large");
    assertEquals(0, device.capture.logStatus().size());
  }

  @Test
  void statusAndMetricsReportTheLog() throws Exception {
    post(body(KEY, "one"), null);
    post(body(KEY, "one"), null);
    HttpResponse<String> status = get("/v1/status");
    assertEquals(200, status.statusCode());
    JsonNode s = json.readTree(status.body());
    assertEquals(1, s.get("logSize").asLong());
    assertEquals("dev-1", s.get("deviceId").asText());
    assertEquals(1, s.get("dedupe").get("duplicates").asLong());
    JsonNode queue = s.get("sync");
    assertEquals(
        device.store.records(0, 1).get(0).capturedAt(), queue.get("oldestUnsyncedAt").asLong());
    assertTrue(queue.get("lastAttempt").isNull(), "never synced: " + queue);
    assertTrue(queue.get("nextRetryAt").isNull(), "no retry scheduled: " + queue);

    HttpResponse<String> metrics = get("/metrics");
    assertEquals(200, metrics.statusCode());
    assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
    assertTrue(metrics.body().contains("\nedge_captures_total 1\n"), metrics.body());
    assertTrue(metrics.body().contains("\nedge_duplicates_total 1\n"), metrics.body());
    assertTrue(metrics.body().contains("# TYPE edge_bloom_fpr_measured gauge"), metrics.body());
    assertTrue(
        metrics.body().contains("edge_api_responses_total{status=\"201\"} 1"), metrics.body());
  }

  @Test
  void unknownRouteIs404() throws Exception {
    problem(get("/v1/nothing"), 404, "not-found");
  }

  @Test
  void nonLoopbackAddressIsRefused() throws Exception {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                IngestServer.start(
                    new InetSocketAddress("0.0.0.0", 0), device.capture, device.store, 1 << 30));
    assertTrue(e.getMessage().contains("loopback"), e.getMessage());
  }

  @Test
  void fullStoreIs507() throws Exception {
    server.close();
    device.stop();
    TestDevice bounded = TestDevice.reopen(device, device.store.sizeOnDiskBytes());
    device = bounded;
    server =
        IngestServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            bounded.capture,
            bounded.store,
            bounded.maxStoreBytes);
    JsonNode p = problem(post(body(KEY, "no room"), null), 507, "store-full");
    assertTrue(p.get("maxStoreBytes").asLong() > 0);
  }
}
