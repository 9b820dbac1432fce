package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored row changed outside the server (docs/operations.md, "Alerts and quarantine"): the
 * requests that need it answer 500 without guessing, every other request is served, and the
 * operators get one CRITICAL {@code DAMAGED_ROW} alert naming the row, however often it is read.
 */
final class DamagedRowIT {
  @TempDir Path dir;

  @Test
  void aDamagedDeviceBundleFailsItsReadersAndRaisesOneAlert() throws Exception {
    try (H2TcpDatabase h2 = H2TcpDatabase.start(dir);
        RedisFixture redis = RedisFixture.embedded();
        SyncServer server = h2.startServer(dir.resolve("data"), redis.uri())) {
      Api api = new Api(server.baseUri(), server.adminToken());
      TestDevice d = TestDevice.create("damaged-dev");
      TestDevice other = TestDevice.create("sound-dev");
      for (TestDevice t : List.of(d, other)) {
        api.enroll(t, server.enrollToken());
        Api.Reply r =
            api.batch(t, t.batch(t.record("room", "u1", "a"), t.record("room", "u2", "b")));
        assertEquals(200, r.status(), r.toString());
      }
      try (Connection c = DriverManager.getConnection(h2.url(), "sa", "");
          PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE device_bundles SET records = ? WHERE device_id = 'damaged-dev'")) {
        ps.setBytes(1, new byte[] {1, 0, 0, 0, 2, 0});
        assertEquals(1, ps.executeUpdate());
      }

      for (int i = 0; i < 3; i++) {
        Api.Reply log = api.get("/v1/devices/damaged-dev/acks?from=0");
        assertEquals(500, log.status(), log.toString());
        assertEquals("internal", log.code());
        assertTrue(log.json().path("detail").asText().contains("damaged"), log.toString());
      }
      // a resend needs the stored records too: refused, nothing changes
      Api.Reply resend = api.post("/v1/devices/damaged-dev/batches", d.resend(0, 2));
      assertEquals(500, resend.status(), resend.toString());
      assertEquals(200, api.get("/v1/devices/sound-dev/acks?from=0").status());

      List<JsonNode> alerts = damagedRowAlerts(api);
      assertEquals(1, alerts.size(), alerts.toString());
      JsonNode a = alerts.get(0);
      assertEquals("CRITICAL", a.path("severity").asText());
      assertEquals("device_bundles", a.path("data").path("table").asText());
      assertEquals("(damaged-dev, 0)", a.path("data").path("row").asText());
      assertTrue(a.path("message").asText().contains("restored from a backup"), a.toString());
    }
  }

  private static List<JsonNode> damagedRowAlerts(Api api) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode a : api.admin("/admin/alerts").json().get("alerts")) {
      if ("DAMAGED_ROW".equals(a.path("data").path("kind").asText())) {
        out.add(a);
      }
    }
    return out;
  }
}
