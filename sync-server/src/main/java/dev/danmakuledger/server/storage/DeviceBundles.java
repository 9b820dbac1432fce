package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The {@code device_bundles} table (docs/architecture.md §6, "Device log storage"): the records of
 * every device log with their outcomes, up to {@value RecordBundle#MAX_RECORDS} consecutive records
 * to a row, written by the batch that appended them. A row holds records {@code [first_idx,
 * end_idx)}, so the row holding index i has {@code first_idx} in {@code (i - 256, i]}.
 */
final class DeviceBundles {
  private static final String COLUMNS = "first_idx, end_idx, records";

  private DeviceBundles() {}

  private static final String INSERT =
      "INSERT INTO device_bundles (device_id, first_idx, end_idx, records, created_at)"
          + " VALUES (?,?,?,?,?)";

  /** Inserts the rows of one device's records (consecutive indices) in one JDBC batch. */
  static void insert(Connection c, String deviceId, List<DeviceRecordRow> records, long now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      if (addRows(ps, deviceId, records, now)) {
        ps.executeBatch();
      }
    }
  }

  /**
   * Inserts the rows of verified batches' records (consecutive indices within each batch) in one
   * JDBC batch.
   */
  static void insert(Connection c, List<BatchCommit> batches, long now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      boolean any = false;
      for (BatchCommit b : batches) {
        any |= addRows(ps, b.device().id(), b.records(), now);
      }
      if (any) {
        ps.executeBatch();
      }
    }
  }

  private static boolean addRows(
      PreparedStatement ps, String deviceId, List<DeviceRecordRow> records, long now)
      throws SQLException {
    for (List<DeviceRecordRow> row : RecordBundle.split(records)) {
      ps.setString(1, deviceId);
      ps.setLong(2, row.get(0).index());
      ps.setLong(3, row.get(row.size() - 1).index() + 1);
      ps.setBytes(4, RecordBundle.encode(row));
      ps.setLong(5, now);
      ps.addBatch();
    }
    return !records.isEmpty();
  }

  /** Records of a device log with indices in [from, to), in index order. */
  static List<DeviceRecordRow> range(Connection c, String deviceId, long from, long to)
      throws SQLException {
    List<DeviceRecordRow> out = new ArrayList<>();
    if (from >= to) {
      return out;
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM device_bundles WHERE device_id = ? AND first_idx > ? AND first_idx < ?"
                + " ORDER BY first_idx")) {
      ps.setString(1, deviceId);
      ps.setLong(2, from - RecordBundle.MAX_RECORDS);
      ps.setLong(3, to);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          for (DeviceRecordRow r : decode(deviceId, rs)) {
            if (r.index() >= from && r.index() < to) {
              out.add(r);
            }
          }
        }
      }
    }
    return out;
  }

  /**
   * The canonical bytes of records of a device log, by index; indices the log does not hold are
   * missing from the map. Reads each row holding one of them once, and decodes from it only the
   * canonical bytes of those records.
   */
  static Map<Long, byte[]> canonicals(Connection c, String deviceId, Collection<Long> indices)
      throws SQLException {
    Map<Long, byte[]> out = new HashMap<>();
    TreeSet<Long> wanted = new TreeSet<>(indices);
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM device_bundles WHERE device_id = ? AND first_idx <= ?"
                + " ORDER BY first_idx DESC LIMIT 1")) {
      while (!wanted.isEmpty()) {
        long index = wanted.first();
        ps.setString(1, deviceId);
        ps.setLong(2, index);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            wanted.remove(index);
            continue;
          }
          Map<Long, byte[]> found =
              RecordBundle.canonicals(
                  deviceId, rs.getLong(1), rs.getLong(2), rs.getBytes(3), wanted);
          out.putAll(found);
          wanted.removeAll(found.keySet());
          wanted.remove(index);
        }
      }
    }
    return out;
  }

  private static List<DeviceRecordRow> decode(String deviceId, ResultSet rs) throws SQLException {
    return RecordBundle.decode(deviceId, rs.getLong(1), rs.getLong(2), rs.getBytes(3));
  }
}
