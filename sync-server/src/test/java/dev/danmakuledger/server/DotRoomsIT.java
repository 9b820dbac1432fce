package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rooms {@code .} and {@code ..} are refused at the server (docs/canonical-record.md, layout
 * field 4): URL paths drop them as dot-segments, so no client could read such a room or its log.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class DotRoomsIT {
  SyncServer server;
  Api api;

  @BeforeAll
  void start(@TempDir Path dir) {
    server = SyncServer.start(ServerConfig.builder(dir).build());
    api = new Api(server.baseUri(), server.adminToken());
  }

  @AfterAll
  void stop() {
    server.close();
  }

  @Test
  void recordsInDotRoomsAreRejectedAndNeverLogged() {
    TestDevice d = api.enrollNew(server.enrollToken());
    BatchResponse r =
        api.sync(
            d,
            d.batch(
                d.record(".", "u", "one dot"),
                d.record("..", "u", "two dots"),
                d.record("dots-ok", "u", "fine")));
    for (int i = 0; i < 2; i++) {
      RecordOutcome o = r.outcomes().get(i);
      assertEquals(Outcome.REJECTED, o.outcome(), o.toString());
      assertEquals("invalid-room", o.reason());
      assertNull(o.seq(), "never numbered");
    }
    assertEquals(Outcome.CONFIRMED, r.outcomes().get(2).outcome());
    assertEquals(3, r.verifiedSize(), "the rejected records stay in the verified log");
  }

  @Test
  void dotRoomsInAPathAre400() {
    for (String room : new String[] {"%2E", "%2E%2E", "%2e%2e"}) {
      Api.Reply reply = api.get("/v1/rooms/" + room + "/messages");
      assertEquals(400, reply.status(), room + ": " + reply);
      assertTrue(reply.body().contains("invalid-field"), reply.toString());
    }
  }
}
