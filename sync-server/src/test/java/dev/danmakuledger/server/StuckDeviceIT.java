package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upload queue state agents report (docs/sync-server.md, "Stuck devices") on a live server with
 * a clock the test moves: kept only from batches whose checkpoint verified, also when the batch is
 * refused afterwards, shown in the device summary, and one STUCK alert per episode.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class StuckDeviceIT {
  static final Duration STUCK_AFTER = Duration.ofMinutes(10);
  static final long MIN = 60_000;
  static final ObjectMapper JSON = new ObjectMapper();

  final MutableClock clock = new MutableClock(Instant.parse("2026-07-01T12:00:00Z"));
  SyncServer server;
  Api api;

  @BeforeAll
  void start(@TempDir Path dir) {
    server =
        SyncServer.start(ServerConfig.builder(dir).stuckAfter(STUCK_AFTER).clock(clock).build());
    api = new Api(server.baseUri(), server.adminToken());
  }

  @AfterAll
  void stop() {
    server.close();
  }

  TestDevice enrolledDevice() {
    return api.enrollNew(server.enrollToken());
  }

  long reportSeq;

  /**
   * {@code b}, a batch of {@code d}, carrying a queue whose oldest capture is {@code oldest}, sent
   * now and signed by {@code d} as its next report.
   */
  BatchRequest reporting(TestDevice d, BatchRequest b, Long oldest, String lastOutcome) {
    SyncAttempt last =
        lastOutcome == null ? null : new SyncAttempt(clock.millis() - 5_000, lastOutcome);
    BatchMetadata m = new BatchMetadata(1, 0, 0, 0).sentAt(clock.millis()).withQueue(oldest, last);
    return d.reporting(b, m, ++reportSeq);
  }

  /** {@code b} carrying that queue unsigned, as agents before signed reports send it. */
  BatchRequest unsigned(BatchRequest b, Long oldest, String lastOutcome) {
    SyncAttempt last =
        lastOutcome == null ? null : new SyncAttempt(clock.millis() - 5_000, lastOutcome);
    BatchMetadata m = new BatchMetadata(1, 0, 0, 0).sentAt(clock.millis()).withQueue(oldest, last);
    return new BatchRequest(b.oldSize(), b.records(), b.checkpoint(), m);
  }

  /**
   * A batch the server authenticates and then refuses (409 size-mismatch): it starts after a batch
   * the server never got, as a device whose state the server lost would keep sending.
   */
  static BatchRequest refusedAfterAuthentication(TestDevice d) {
    d.batch(d.record("r", "u", "never sent"));
    return d.batch(d.record("r", "u", "stuck behind it"));
  }

  JsonNode queueOf(String deviceId) {
    for (JsonNode d : api.admin("/admin/devices").json().get("devices")) {
      if (deviceId.equals(d.get("deviceId").asText())) {
        return d.get("queue");
      }
    }
    throw new AssertionError("device " + deviceId + " is not listed");
  }

  List<JsonNode> stuckAlerts(String deviceId) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode a : api.admin("/admin/alerts").json().get("alerts")) {
      if (deviceId.equals(a.path("deviceId").asText())
          && "STUCK".equals(a.path("data").path("kind").asText())) {
        out.add(a);
      }
    }
    return out;
  }

  static String path(String deviceId) {
    return "/v1/devices/" + deviceId + "/batches";
  }

  @Test
  void queueStateIsKeptOnlyFromAuthenticatedBatches() {
    TestDevice d = enrolledDevice();
    BatchRequest forged = HostileClientsIT.forged(d);
    long ancient = clock.millis() - 24 * 60 * MIN;
    for (int i = 0; i < 3; i++) {
      assertEquals(403, api.post(path(d.id), unsigned(forged, ancient, "bad-proof")).status());
    }
    assertTrue(queueOf(d.id).isNull(), "a forged checkpoint changes nothing: " + queueOf(d.id));
    assertTrue(stuckAlerts(d.id).isEmpty());

    Api.Reply old = api.post(path(d.id), d.batch(d.record("r", "u", "from an older agent")));
    assertEquals(200, old.status(), old.toString());
    assertTrue(queueOf(d.id).isNull(), "an older agent reports nothing: unknown");

    long oldest = clock.millis() - 3 * MIN;
    Api.Reply refused =
        api.post(
            path(d.id), reporting(d, refusedAfterAuthentication(d), oldest, "transport-timeout"));
    assertEquals(409, refused.status(), refused.toString());
    JsonNode q = queueOf(d.id);
    assertEquals(3 * MIN, q.get("oldestUnsyncedAgeMs").asLong(), q.toString());
    assertEquals(5_000, q.get("lastAttemptAgeMs").asLong(), q.toString());
    assertEquals("transport-timeout", q.get("lastAttemptOutcome").asText());
    assertFalse(q.get("stuck").asBoolean());
    assertEquals(clock.instant().toString(), q.get("reportedAt").asText());

    clock.advance(Duration.ofMinutes(2));
    JsonNode later = queueOf(d.id);
    assertEquals(5 * MIN, later.get("oldestUnsyncedAgeMs").asLong(), "ages as time passes");
    assertEquals(5_000 + 2 * MIN, later.get("lastAttemptAgeMs").asLong());
  }

  /**
   * The device list survives clock readings no device sends: an anonymous caller replays the
   * device's public checkpoint (GET .../log) with its clock at the largest long and its oldest
   * capture and last attempt at the epoch. Ages saturate at the server's clock; the page is served.
   */
  @Test
  void aReplayedCheckpointWithAbsurdClockReadingsLeavesTheDeviceListServed() throws Exception {
    TestDevice d = enrolledDevice();
    assertEquals(200, api.post(path(d.id), d.batch(d.record("r", "u", "one"))).status());
    JsonNode log = api.get("/v1/devices/" + d.id + "/log").json();
    long size = log.get("verifiedSize").asLong();
    String checkpoint = log.get("checkpoint").asText();
    for (String lastAttempt : List.of("", ",\"lastAttempt\":{\"atMillis\":0,\"outcome\":\"ok\"}")) {
      String replay =
          "{\"oldSize\":"
              + size
              + ",\"records\":[],\"checkpoint\":"
              + JSON.writeValueAsString(checkpoint)
              + ",\"metadata\":{\"bloomChecks\":0,\"bloomMaybe\":0,\"edgeDuplicates\":0,"
              + "\"bloomFalsePositives\":0,\"deviceClockMillis\":9223372036854775807,"
              + "\"oldestUnsyncedMillis\":0"
              + lastAttempt
              + "}}";
      Api.Reply r = api.postRaw(path(d.id), replay.getBytes(StandardCharsets.UTF_8));
      assertTrue(r.status() < 500, r.toString());
      clock.advance(Duration.ofMinutes(1));
      Api.Reply devices = api.admin("/admin/devices");
      assertEquals(200, devices.status(), devices.toString());
      JsonNode q = queueOf(d.id);
      if (!q.isNull() && !q.get("oldestUnsyncedAgeMs").isNull()) {
        long age = q.get("oldestUnsyncedAgeMs").asLong();
        assertTrue(age >= 0 && age <= 2 * clock.millis(), "a saturated age: " + q);
      }
    }
  }

  @Test
  void stuckIsRaisedOncePerEpisodeWithTheAgeAndTheLastOutcome() {
    TestDevice d = enrolledDevice();
    BatchRequest failing = refusedAfterAuthentication(d);
    long head = clock.millis() - 11 * MIN;
    assertEquals(409, api.post(path(d.id), reporting(d, failing, head, "size-mismatch")).status());
    assertTrue(stuckAlerts(d.id).isEmpty(), "one contact is not a device that keeps contacting");
    for (int i = 0; i < 4; i++) {
      clock.advance(Duration.ofMinutes(1));
      assertEquals(
          409, api.post(path(d.id), reporting(d, failing, head, "size-mismatch")).status());
    }
    List<JsonNode> alerts = stuckAlerts(d.id);
    assertEquals(1, alerts.size(), "one alert for the episode: " + alerts);
    JsonNode a = alerts.get(0);
    assertEquals("WARN", a.get("severity").asText());
    assertEquals(12 * MIN, a.get("data").get("queueAgeMs").asLong(), "age when it became stuck");
    assertEquals("size-mismatch", a.get("data").get("lastOutcome").asText());
    assertTrue(a.get("message").asText().contains("720 s old"), a.toString());
    assertTrue(queueOf(d.id).get("stuck").asBoolean());

    assertEquals(409, api.post(path(d.id), reporting(d, failing, null, "ok")).status());
    assertFalse(queueOf(d.id).get("stuck").asBoolean(), "drained: the episode ends");
    assertTrue(queueOf(d.id).get("oldestUnsyncedAgeMs").isNull(), "an empty queue");

    clock.advance(Duration.ofMinutes(30));
    long again = clock.millis() - 15 * MIN;
    assertEquals(409, api.post(path(d.id), reporting(d, failing, again, "rate-limited")).status());
    clock.advance(Duration.ofMinutes(1));
    assertEquals(409, api.post(path(d.id), reporting(d, failing, again, "rate-limited")).status());
    alerts = stuckAlerts(d.id);
    assertEquals(2, alerts.size(), "stuck again: a second episode: " + alerts);
    assertEquals("rate-limited", alerts.get(0).get("data").get("lastOutcome").asText());
    assertTrue(
        api.get("/metrics").body().contains("danmaku_ledger_stuck_episodes_total"),
        "the episode counter is exported");
  }

  @Test
  void aQueueReportedWithABatchThatWasStoredIsShownDeliveredWhileTheDeviceIsIdle() {
    TestDevice d = enrolledDevice();
    long oldest = clock.millis() - 3 * MIN;
    Api.Reply stored =
        api.post(
            path(d.id), reporting(d, d.batch(d.record("r", "u", "the whole queue")), oldest, "ok"));
    assertEquals(200, stored.status(), stored.toString());
    clock.advance(Duration.ofMinutes(20));
    JsonNode q = queueOf(d.id);
    assertTrue(
        q.get("oldestUnsyncedAgeMs").isNull(),
        "the capture that was oldest went out with that very batch: " + q);
    assertFalse(q.get("stuck").asBoolean());
    assertEquals("ok", q.get("lastAttemptOutcome").asText());

    long later = clock.millis() - 12 * MIN;
    for (int i = 0; i < 3; i++) {
      assertEquals(
          409,
          api.post(path(d.id), reporting(d, refusedAfterAuthentication(d), later, "ok")).status());
      clock.advance(Duration.ofMinutes(1));
    }
    JsonNode failing = queueOf(d.id);
    assertTrue(failing.get("oldestUnsyncedAgeMs").asLong() >= 12 * MIN, failing.toString());
    assertTrue(failing.get("stuck").asBoolean(), "a refused batch delivered nothing: " + failing);
  }
}
