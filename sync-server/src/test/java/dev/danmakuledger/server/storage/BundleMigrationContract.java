package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.protocol.wire.Outcome;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Upgrading a database whose device records are one row each (before migration 9): migration 10
 * moves them into bundles unchanged, whatever the outcome and whichever fields are null, and drops
 * the old table.
 */
abstract class BundleMigrationContract extends MigrationContract {
  @Test
  void deviceRecordsMoveIntoBundlesUnchanged() throws Exception {
    String url = freshDatabase();
    Flyway.configure()
        .dataSource(url, null, null)
        .locations("classpath:db/migration")
        .placeholders(Map.of("tableOptions", tableOptions()))
        .target("8")
        .load()
        .migrate();
    List<DeviceRecordRow> kiosk = RecordBundleTest.rows(0, 600);
    List<DeviceRecordRow> clone = new ArrayList<>();
    clone.add(row("clone", 0, Outcome.CONFIRMED));
    clone.add(row("clone", 1, Outcome.REJECTED));
    clone.add(row("clone", 7, Outcome.DUPLICATE)); // after a hole: a row of its own
    try (Connection c = DriverManager.getConnection(url)) {
      insert(c, kiosk);
      insert(c, clone);
    }

    try (Database db = Database.open(url, null, null)) {
      LedgerStore store = new LedgerStore(db, Clock.systemUTC());
      RecordBundleTest.assertSameRows(kiosk, store.records("kiosk", 0, 600));
      RecordBundleTest.assertSameRows(kiosk.subList(250, 260), store.records("kiosk", 250, 260));
      RecordBundleTest.assertSameRows(clone, store.records("clone", 0, 10));
      try (Connection c = db.dataSource().getConnection();
          Statement st = c.createStatement()) {
        assertThrows(SQLException.class, () -> st.executeQuery("SELECT 1 FROM device_records"));
        // run again (as after a crash before Flyway recorded it): nothing to move, nothing lost
        javaMigration("10").migrate(context(c));
      }
      RecordBundleTest.assertSameRows(kiosk, store.records("kiosk", 0, 600));
    }
  }

  private static DeviceRecordRow row(String device, long index, Outcome outcome) {
    DeviceRecordRow r = RecordBundleTest.row(index, outcome, 20);
    return new DeviceRecordRow(
        device,
        index,
        r.idempotencyKey(),
        r.canonical(),
        outcome,
        r.room(),
        r.seq(),
        r.messageId(),
        r.originalStatus(),
        r.reason());
  }

  private static void insert(Connection c, List<DeviceRecordRow> rows) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO device_records (device_id, idx, idempotency_key, canonical, outcome,"
                + " room, seq, message_id, original_status, reason, created_at)"
                + " VALUES (?,?,?,?,?,?,?,?,?,?,?)")) {
      for (DeviceRecordRow r : rows) {
        ps.setString(1, r.deviceId());
        ps.setLong(2, r.index());
        ps.setString(3, r.idempotencyKey());
        ps.setBytes(4, r.canonical());
        ps.setString(5, r.outcome().name());
        ps.setString(6, r.room());
        Jdbc.setLong(ps, 7, r.seq());
        Jdbc.setLong(ps, 8, r.messageId());
        ps.setString(9, r.originalStatus());
        ps.setString(10, r.reason());
        ps.setLong(11, 42);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }
}
