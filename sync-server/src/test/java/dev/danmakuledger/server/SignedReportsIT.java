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
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Device reports are the device's word only when its key signed them for their batch (docs/sync.md,
 * "Signed reports"): on a live server, an anonymous caller replaying a device's public checkpoint
 * with metadata of its choosing changes nothing operators see, a replayed signed report is refused,
 * and an older agent's unsigned report is shown unsigned and raises no alert.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class SignedReportsIT {
  static final Duration STUCK_AFTER = Duration.ofMinutes(10);
  static final long MIN = 60_000;
  static final long YEAR = 365L * 24 * 60 * MIN;
  static final String BAIT = "call-555-0100-for-help";
  static final ObjectMapper JSON = new ObjectMapper();

  final MutableClock clock = new MutableClock(Instant.parse("2026-07-01T12:00:00Z"));
  SyncServer server;
  Api api;
  long reportSeq;

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

  BatchMetadata queue(Long oldest, String lastOutcome) {
    SyncAttempt last = new SyncAttempt(clock.millis() - 5_000, lastOutcome);
    return new BatchMetadata(1, 0, 0, 0).sentAt(clock.millis()).withQueue(oldest, last);
  }

  static BatchRequest with(BatchRequest b, BatchMetadata m) {
    return new BatchRequest(b.oldSize(), b.records(), b.checkpoint(), m);
  }

  static String path(String deviceId) {
    return "/v1/devices/" + deviceId + "/batches";
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

  long metric(String name) {
    for (String line : api.get("/metrics").body().split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError("no metric " + name);
  }

  /**
   * The attack as an anonymous caller runs it: the device's checkpoint from GET .../log replayed
   * 150 times as an empty batch, in cycles of one report with an empty queue and two with a
   * year-old one, unsigned and with a made-up signature, all with an outcome of the caller's
   * choosing. Nothing stored changes, no STUCK alert is raised, the outcome is shown nowhere.
   */
  @Test
  void replayFloodOfThePublicCheckpointWithForgedMetadataChangesNothing() throws Exception {
    TestDevice d = api.enrollNew(server.enrollToken());
    BatchRequest own = d.batch(d.record("r", "u", "one"));
    Api.Reply first = api.post(path(d.id), d.reporting(own, queue(null, "ok"), ++reportSeq));
    assertEquals(200, first.status(), first.toString());
    JsonNode before = queueOf(d.id);
    assertTrue(before.get("signed").asBoolean(), before.toString());
    long episodes = metric("danmaku_ledger_stuck_episodes_total");

    JsonNode log = api.get("/v1/devices/" + d.id + "/log").json();
    long size = log.get("verifiedSize").asLong();
    String checkpoint = JSON.writeValueAsString(log.get("checkpoint").asText());
    String madeUp = Base64.getEncoder().encodeToString(new byte[68]);
    int answered = 0;
    for (int cycle = 0; cycle < 50; cycle++) {
      for (int i = 0; i < 3; i++) {
        long oldest = i == 0 ? -1 : clock.millis() - YEAR;
        String signature =
            cycle % 2 == 0
                ? ""
                : ",\"reportSeq\":" + ((1L << 40) + cycle) + ",\"signature\":\"" + madeUp + "\"";
        String replay =
            "{\"oldSize\":"
                + size
                + ",\"records\":[],\"checkpoint\":"
                + checkpoint
                + ",\"metadata\":{\"bloomChecks\":999,\"bloomMaybe\":0,\"edgeDuplicates\":0,"
                + "\"bloomFalsePositives\":0,\"deviceClockMillis\":"
                + clock.millis()
                + (oldest < 0 ? "" : ",\"oldestUnsyncedMillis\":" + oldest)
                + ",\"lastAttempt\":{\"atMillis\":"
                + clock.millis()
                + ",\"outcome\":\""
                + BAIT
                + "\"}"
                + signature
                + "}}";
        Api.Reply r = api.postRaw(path(d.id), replay.getBytes(StandardCharsets.UTF_8));
        assertEquals(200, r.status(), "a replay of a verified checkpoint: " + r);
        answered++;
      }
      clock.advance(Duration.ofSeconds(20));
    }
    assertEquals(150, answered);

    JsonNode after = queueOf(d.id);
    assertEquals(
        before.get("lastAttemptOutcome"), after.get("lastAttemptOutcome"), after.toString());
    assertEquals(before.get("reportedAt"), after.get("reportedAt"), "no report was stored");
    assertFalse(after.get("stuck").asBoolean());
    assertTrue(stuckAlerts(d.id).isEmpty(), "no STUCK alert");
    assertEquals(episodes, metric("danmaku_ledger_stuck_episodes_total"));
    assertFalse(api.admin("/admin/devices").body().contains(BAIT), "the bait is shown nowhere");
    assertFalse(api.admin("/admin/alerts").body().contains(BAIT));
    assertTrue(metric("danmaku_ledger_unverified_reports_total") >= 75, "made-up signatures count");
  }

  @Test
  void aSignedReportIsStoredAndShownSigned() {
    TestDevice d = api.enrollNew(server.enrollToken());
    long oldest = clock.millis() - 3 * MIN;
    BatchRequest b = d.reporting(d.batch(d.record("r", "u", "a")), queue(oldest, "ok"), 1);
    assertEquals(200, api.post(path(d.id), b).status());
    JsonNode q = queueOf(d.id);
    assertTrue(q.get("signed").asBoolean(), q.toString());
    assertEquals("ok", q.get("lastAttemptOutcome").asText());
    assertEquals(clock.instant().toString(), q.get("reportedAt").asText());
  }

  /**
   * A signed report replayed verbatim with its own batch (a resend the server answers from stored
   * outcomes) is older than the report stored since, so it is not stored again.
   */
  @Test
  void aReplayedSignedReportIsRefused() {
    TestDevice d = api.enrollNew(server.enrollToken());
    BatchRequest earlier =
        d.reporting(
            d.batch(d.record("r", "u", "a")), queue(clock.millis(), "transport-timeout"), 7);
    assertEquals(200, api.post(path(d.id), earlier).status());
    clock.advance(Duration.ofMinutes(1));
    BatchRequest later = d.reporting(d.batch(d.record("r", "u", "b")), queue(null, "ok"), 8);
    assertEquals(200, api.post(path(d.id), later).status());
    JsonNode stored = queueOf(d.id);
    assertEquals("ok", stored.get("lastAttemptOutcome").asText());

    clock.advance(Duration.ofMinutes(1));
    Api.Reply replayed = api.post(path(d.id), earlier);
    assertEquals(200, replayed.status(), "a resend is answered: " + replayed);
    JsonNode after = queueOf(d.id);
    assertEquals("ok", after.get("lastAttemptOutcome").asText(), "the replay is refused: " + after);
    assertEquals(stored.get("reportedAt"), after.get("reportedAt"));

    BatchRequest sameNumber = d.reporting(d.batch(d.record("r", "u", "c")), queue(null, "x"), 8);
    assertEquals(200, api.post(path(d.id), sameNumber).status(), "the batch itself is stored");
    assertEquals("ok", queueOf(d.id).get("lastAttemptOutcome").asText(), "its report is not");
  }

  /**
   * An agent before signed reports sends its queue unsigned with batches that extend its log:
   * shown, flagged unsigned, and never STUCK however old and unmoved its queue.
   */
  @Test
  void anUnsignedReportOfAnOlderAgentIsShownUnsignedAndRaisesNoAlert() {
    TestDevice d = api.enrollNew(server.enrollToken());
    long head = clock.millis() - 60 * MIN;
    for (int i = 0; i < 4; i++) {
      BatchRequest b = with(d.batch(d.record("r", "u", "m" + i)), queue(head, "bad-proof"));
      assertEquals(200, api.post(path(d.id), b).status());
      clock.advance(Duration.ofMinutes(1));
    }
    JsonNode q = queueOf(d.id);
    assertFalse(q.get("signed").asBoolean(), q.toString());
    assertEquals("bad-proof", q.get("lastAttemptOutcome").asText());
    assertFalse(q.get("stuck").asBoolean());
    assertTrue(stuckAlerts(d.id).isEmpty(), "an unsigned report raises no alert");
  }
}
