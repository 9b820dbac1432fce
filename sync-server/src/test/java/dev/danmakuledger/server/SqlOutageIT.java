package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The database going away (docs/operations.md, Outages: SQL down is a 503, nothing half-written):
 * the server talks to an H2 TCP server that the test stops; batches and readiness answer 503 with
 * Retry-After, and the server keeps serving what does not need SQL.
 */
final class SqlOutageIT {
  @TempDir Path dir;

  @Test
  void batchesGet503WhenTheDatabaseIsUnreachable() throws SQLException {
    try (H2TcpDatabase h2 = H2TcpDatabase.start(dir);
        RedisFixture redis = RedisFixture.embedded();
        SyncServer server = h2.startServer(dir.resolve("data"), redis.uri())) {
      Api api = new Api(server.baseUri(), server.adminToken());
      TestDevice d = TestDevice.create("sql-dev");
      api.enroll(d, server.enrollToken());
      BatchRequest batch = d.batch(d.record("sql-room", "u1", "a"));

      h2.stop();

      Api.Reply r = api.batch(d, batch);
      assertEquals(503, r.status(), r.toString());
      assertEquals("sql-unavailable", r.code());
      assertNotNull(r.retryAfter());
      Api.Reply ready = api.get("/readyz");
      assertEquals(503, ready.status());
      assertEquals("DOWN", ready.json().get("sql").asText());
      assertEquals(200, api.get("/healthz").status());
    }
  }
}
