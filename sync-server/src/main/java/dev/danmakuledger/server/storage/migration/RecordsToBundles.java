package dev.danmakuledger.server.storage.migration;

import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.RecordBundle;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.api.migration.Context;

/**
 * Migration 10 (docs/architecture.md §6, "Device log storage"): moves every row of {@code
 * device_records} (one row per record, the layout before migration 9) into {@code device_bundles},
 * {@value RecordBundle#MAX_RECORDS} consecutive records of a device to a row, then drops {@code
 * device_records}. It reads one device and one row's worth of records at a time, so it needs no
 * more memory for a large table. It runs outside a transaction, each JDBC batch committing on its
 * own, so that a large table does not become one huge transaction; rerunning it after a failure
 * starts over (it first empties {@code device_bundles}, which nothing else writes before the
 * migrations are done), and a rerun after {@code device_records} was dropped has nothing to move.
 */
final class RecordsToBundles extends MigrationOutsideTransaction {
  private static final String INSERT =
      "INSERT INTO device_bundles (device_id, first_idx, end_idx, records, created_at)"
          + " VALUES (?,?,?,?,?)";

  RecordsToBundles() {
    super("10", "device records to bundles");
  }

  @Override
  public void migrate(Context context) throws SQLException {
    Connection c = context.getConnection();
    if (!hasDeviceRecords(c)) {
      return;
    }
    try (Statement st = c.createStatement()) {
      st.executeUpdate("DELETE FROM device_bundles");
    }
    List<String> devices = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT DISTINCT device_id FROM device_records ORDER BY device_id")) {
      while (rs.next()) {
        devices.add(rs.getString(1));
      }
    }
    for (String device : devices) {
      move(c, device);
    }
    try (Statement st = c.createStatement()) {
      st.executeUpdate("DROP TABLE device_records");
    }
  }

  /** Whether this schema still has the table (names are lower case on H2 and on MySQL). */
  private static boolean hasDeviceRecords(Connection c) throws SQLException {
    try (ResultSet rs =
        c.getMetaData().getTables(c.getCatalog(), null, "device_records", new String[] {"TABLE"})) {
      return rs.next();
    }
  }

  private static void move(Connection c, String device) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT idx, idempotency_key, canonical, outcome, room, seq, message_id,"
                + " original_status, reason, created_at FROM device_records"
                + " WHERE device_id = ? AND idx >= ? ORDER BY idx LIMIT "
                + RecordBundle.MAX_RECORDS)) {
      long from = 0;
      while (true) {
        ps.setString(1, device);
        ps.setLong(2, from);
        List<DeviceRecordRow> run = new ArrayList<>();
        long createdAt = 0;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            long idx = rs.getLong(1);
            if (!run.isEmpty() && idx != run.get(run.size() - 1).index() + 1) {
              break; // a hole in the stored indices: the next row starts after it
            }
            run.add(
                new DeviceRecordRow(
                    device,
                    idx,
                    rs.getString(2),
                    rs.getBytes(3),
                    Outcome.valueOf(rs.getString(4)),
                    rs.getString(5),
                    nullableLong(rs, 6),
                    nullableLong(rs, 7),
                    rs.getString(8),
                    rs.getString(9)));
            createdAt = Math.max(createdAt, rs.getLong(10));
          }
        }
        if (run.isEmpty()) {
          return;
        }
        insert(c, device, run, createdAt);
        from = run.get(run.size() - 1).index() + 1;
      }
    }
  }

  /** Inserts one device's consecutive records as bundle rows, in one JDBC batch. */
  private static void insert(Connection c, String device, List<DeviceRecordRow> run, long at)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      for (List<DeviceRecordRow> row : RecordBundle.split(run)) {
        ps.setString(1, device);
        ps.setLong(2, row.get(0).index());
        ps.setLong(3, row.get(row.size() - 1).index() + 1);
        ps.setBytes(4, RecordBundle.encode(row));
        ps.setLong(5, at);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private static Long nullableLong(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }
}
