package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.admin.ClusterHistory;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code GET /admin/history} end to end over a real socket (docs/sync-server.md, "History"): the
 * instance's own batches appear in the running minute, the window is bounded, and malformed or
 * oversized windows are a 400 problem+json that says what to send.
 */
final class HistoryIT {
  @TempDir static Path dir;
  static SyncServer server;
  static Api api;

  @BeforeAll
  static void start() {
    server = SyncServer.start(ServerConfig.builder(dir).build());
    api = new Api(server.baseUri(), server.adminToken());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void theRunningMinuteHoldsWhatThisInstanceStored() {
    TestDevice d = TestDevice.create("history-dev");
    api.enroll(d, server.enrollToken());
    Api.Reply r =
        api.batch(
            d, d.batch(d.record("history-room", "u", "one"), d.record("history-room", "u", "two")));
    assertEquals(200, r.status(), r.toString());
    r.as(BatchResponse.class);
    assertTrue(server.sampleHistoryNow());

    Api.Reply h = api.admin("/admin/history?minutes=3");
    assertEquals(200, h.status(), h.toString());
    ClusterHistory history = h.as(ClusterHistory.class);
    assertEquals(3, history.minutes());
    assertEquals(3, history.points().size());
    long batches = history.points().stream().mapToLong(ClusterHistory.Minute::batches).sum();
    long confirmed = history.points().stream().mapToLong(ClusterHistory.Minute::confirmed).sum();
    assertEquals(1, batches, h.body());
    assertEquals(2, confirmed, h.body());
    assertTrue(
        history.points().stream().anyMatch(p -> p.instances() == 1),
        "this instance's sample is in the window: " + h.body());
    for (int i = 1; i < history.points().size(); i++) {
      assertEquals(
          Instant.parse(history.points().get(i - 1).minute()).plusSeconds(60),
          Instant.parse(history.points().get(i).minute()),
          "one point per minute, oldest first");
    }
  }

  @Test
  void withoutMinutesTheLastHourIsServed() {
    Api.Reply h = api.admin("/admin/history");
    assertEquals(200, h.status(), h.toString());
    assertEquals(60, h.as(ClusterHistory.class).points().size());
    assertEquals(1440, api.admin("/admin/history?minutes=1440").as(ClusterHistory.class).minutes());
  }

  @ParameterizedTest(name = "minutes={0}")
  @ValueSource(
      strings = {"0", "-1", "1441", "abc", "1.5", "%20", "", "99999999999999999999999999", "0x10"})
  void aWindowOutOfBoundsIsAClearBadRequest(String minutes) {
    Api.Reply h = api.admin("/admin/history?minutes=" + minutes);
    assertEquals(400, h.status(), h.toString());
    assertEquals(Problem.MEDIA_TYPE, h.contentType());
    assertEquals("invalid-field", h.code());
    assertTrue(h.json().path("detail").asText().contains("1..1440"), h.toString());
  }

  @Test
  void theHistoryNeedsTheAdminToken() {
    Api.Reply h = api.get("/admin/history?minutes=5");
    assertEquals(401, h.status(), h.toString());
    assertEquals(Problem.MEDIA_TYPE, h.contentType());
  }
}
