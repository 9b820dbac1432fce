package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.trace.TraceParent;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.testkit.TestDevice;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's view of a running server (docs/operations.md, "Metrics" and "Tracing"): the {@code
 * /metrics} exposition is valid for {@code promtool check metrics}, carries the pipeline histograms
 * and ledger counters the Grafana dashboard uses, and the agent's {@code traceparent} reaches
 * problem bodies and alerts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class ObservabilityIT {
  static final Path DASHBOARD = Path.of("..", "docs", "grafana-dashboard.json");
  static final Pattern METRIC = Pattern.compile("\\bdanmaku_[a-z_]+\\b");

  final MutableClock clock = MutableClock.running();
  final HttpClient http = HttpClient.newHttpClient();
  SyncServer server;
  Api api;

  @BeforeAll
  void start(@TempDir Path dir) {
    server = SyncServer.start(ServerConfig.builder(dir).clock(clock).build());
    api = new Api(server.baseUri(), server.adminToken());
  }

  @AfterAll
  void stop() {
    server.close();
  }

  TestDevice enrolled() {
    TestDevice d = TestDevice.create("obs-" + UUID.randomUUID().toString().substring(0, 8));
    api.enroll(d, server.enrollToken());
    return d;
  }

  HttpResponse<String> postBatch(String deviceId, byte[] body, TraceParent trace)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(server.baseUri().resolve("/v1/devices/" + deviceId + "/batches"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (trace != null) {
      b.header(TraceParent.HEADER, trace.header());
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  String scrape() {
    Api.Reply r = api.get("/metrics");
    assertEquals(200, r.status());
    assertTrue(r.contentType().startsWith("text/plain"), r.contentType());
    return r.body();
  }

  void syncOneBatch() throws Exception {
    TestDevice d = enrolled();
    String room = "obs-room";
    byte[] body =
        Api.JSON.writeValueAsBytes(
            d.batch(d.record(room, "u1", "hello"), d.record(room, "u2", "world")));
    HttpResponse<String> r = postBatch(d.id, body, TraceParent.random());
    assertEquals(200, r.statusCode(), r.body());
  }

  @Test
  void everyStageOfABatchIsInItsHistogram() throws Exception {
    syncOneBatch();
    String text = scrape();
    for (String stage : new String[] {"verify", "triage", "admit", "commit", "publish"}) {
      Matcher m =
          Pattern.compile("danmaku_stage_seconds_count\\{stage=\"" + stage + "\"} (\\d+)")
              .matcher(text);
      assertTrue(m.find(), stage + " missing in\n" + text);
      assertTrue(Long.parseLong(m.group(1)) >= 1, stage + " never observed");
    }
    assertTrue(text.contains("danmaku_room_high_water{room=\"obs-room\"}"), text);
    assertTrue(text.contains("danmaku_sse_subscribers "), text);
  }

  @Test
  void theExpositionPassesPromtool() throws Exception {
    syncOneBatch();
    String text = scrape();
    boolean ci = "true".equals(System.getenv("CI"));
    if (!onPath("promtool")) {
      if (ci) {
        fail("promtool is not installed; CI installs it (Debian package prometheus)");
      }
      Assumptions.abort("promtool is not installed (apt-get install prometheus)");
    }
    Process p =
        new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
    p.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
    assertEquals(0, p.exitValue(), "promtool check metrics:\n" + out);
    assertFalse(out.contains("no help text"), out);
  }

  static boolean onPath(String tool) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  @Test
  void everyMetricTheDashboardNamesIsExposed() throws Exception {
    syncOneBatch();
    JsonNode dashboard = Api.JSON.readTree(Files.readString(DASHBOARD));
    Set<String> named = new TreeSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        Matcher m = METRIC.matcher(target.path("expr").asText());
        while (m.find()) {
          named.add(m.group());
        }
      }
    }
    assertTrue(named.size() >= 10, "dashboard names only " + named);
    Set<String> exposed = new TreeSet<>();
    for (String line : scrape().split("\n")) {
      Matcher m = Pattern.compile("^(danmaku_[a-z_]+)[{ ]").matcher(line);
      if (m.find()) {
        exposed.add(m.group(1));
      }
    }
    Set<String> missing = new TreeSet<>(named);
    missing.removeAll(exposed);
    assertTrue(missing.isEmpty(), "dashboard names " + missing + " not in " + exposed);
  }

  @Test
  void aRefusedBatchNamesTheAgentsTraceInItsProblemAndAlert() throws Exception {
    TestDevice d = enrolled();
    TestDevice impostor = TestDevice.create(d.id);
    TraceParent trace = TraceParent.random();
    byte[] body =
        Api.JSON.writeValueAsBytes(impostor.batch(impostor.record("obs-room", "x", "forged")));
    HttpResponse<String> r = postBatch(d.id, body, trace);
    assertEquals(4, r.statusCode() / 100, r.body());
    JsonNode problem = Api.JSON.readTree(r.body());
    assertEquals("bad-signature", problem.path("code").asText(), r.body());
    assertEquals(trace.traceId(), problem.path("traceId").asText(), r.body());
    boolean found = false;
    for (JsonNode a : api.admin("/admin/alerts").json().path("alerts")) {
      if (d.id.equals(a.path("deviceId").asText())) {
        assertEquals(trace.traceId(), a.path("data").path("traceId").asText(), a.toString());
        found = true;
      }
    }
    assertTrue(found, "no alert for " + d.id);
  }

  JsonNode deviceSummary(String id) {
    for (JsonNode d : api.admin("/admin/devices").json().path("devices")) {
      if (id.equals(d.path("deviceId").asText())) {
        return d;
      }
    }
    throw new AssertionError("no device " + id);
  }

  @Test
  void clockSkewIsTheSentDeviceClockMinusTheServersElseUnknown() throws Exception {
    TestDevice legacy = enrolled();
    BatchRequest b = legacy.batch(legacy.record("obs-room", "u", "from 1970"));
    BatchRequest stamped =
        new BatchRequest(b.oldSize(), b.records(), b.checkpoint(), b.metadata().sentAt(0));
    long before = clock.millis();
    assertEquals(200, postBatch(legacy.id, Api.JSON.writeValueAsBytes(stamped), null).statusCode());
    long after = clock.millis();
    long skew = deviceSummary(legacy.id).path("clockSkewMs").asLong();
    assertTrue(
        skew <= -before && skew >= -after, skew + " not in [" + -after + ", " + -before + "]");

    TestDevice old = enrolled();
    BatchRequest unstamped = old.batch(old.record("obs-room", "u", "no clock sent"));
    assertEquals(null, unstamped.metadata().deviceClockMillis());
    assertEquals(200, postBatch(old.id, Api.JSON.writeValueAsBytes(unstamped), null).statusCode());
    assertTrue(deviceSummary(old.id).path("clockSkewMs").isNull(), "skew unknown, not guessed");
  }

  @Test
  void aNegativeDeviceClockIsRefusedAsInvalid() throws Exception {
    TestDevice d = enrolled();
    String body =
        Api.JSON
            .writeValueAsString(d.batch(d.record("obs-room", "u", "x")))
            .replace("\"deviceClockMillis\":null", "\"deviceClockMillis\":-1");
    assertTrue(body.contains("\"deviceClockMillis\":-1"), body);
    HttpResponse<String> r = postBatch(d.id, body.getBytes(StandardCharsets.UTF_8), null);
    assertEquals(400, r.statusCode(), r.body());
    assertTrue(r.body().contains("deviceClockMillis"), r.body());
  }

  @Test
  void malformedInputGetsAFreshTraceIdInItsProblem() throws Exception {
    HttpResponse<String> r =
        postBatch("nobody", "{not json".getBytes(StandardCharsets.UTF_8), null);
    assertEquals(4, r.statusCode() / 100, r.body());
    String traceId = Api.JSON.readTree(r.body()).path("traceId").asText();
    assertTrue(traceId.matches("[0-9a-f]{32}"), r.body());
    HttpRequest hostile =
        HttpRequest.newBuilder(server.baseUri().resolve("/v1/devices/nobody/log"))
            .header(TraceParent.HEADER, "00-" + "z".repeat(400))
            .build();
    HttpResponse<String> h = http.send(hostile, HttpResponse.BodyHandlers.ofString());
    assertEquals(404, h.statusCode(), h.body());
    assertTrue(
        Api.JSON.readTree(h.body()).path("traceId").asText().matches("[0-9a-f]{32}"), h.body());
  }
}
