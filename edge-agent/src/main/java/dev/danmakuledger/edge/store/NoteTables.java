package dev.danmakuledger.edge.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code checkpoints} (the device's signed tree heads, C2SP signed notes) and {@code receipts}
 * (the server's cosignatures of them, docs/architecture.md §10 "Receipts") tables.
 */
final class NoteTables {
  private NoteTables() {}

  static void saveReceipt(Connection conn, long size, String note, long receivedAt)
      throws SQLException {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "INSERT INTO receipts(size, note, received_at) VALUES (?, ?, ?) "
                + "ON CONFLICT(size) DO UPDATE SET note = excluded.note,"
                + " received_at = excluded.received_at")) {
      ps.setLong(1, size);
      ps.setString(2, note);
      ps.setLong(3, receivedAt);
      ps.executeUpdate();
    }
  }

  static Optional<StoredCheckpoint> latestReceipt(Connection conn) throws SQLException {
    return latest(conn, "SELECT size, note, received_at FROM receipts ORDER BY size DESC LIMIT 1");
  }

  static Optional<StoredCheckpoint> latestCheckpoint(Connection conn) throws SQLException {
    return latest(
        conn, "SELECT size, note, created_at FROM checkpoints ORDER BY size DESC LIMIT 1");
  }

  private static Optional<StoredCheckpoint> latest(Connection conn, String sql)
      throws SQLException {
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return rs.next()
          ? Optional.of(new StoredCheckpoint(rs.getLong(1), rs.getString(2), rs.getLong(3)))
          : Optional.empty();
    }
  }

  static List<StoredCheckpoint> checkpoints(Connection conn) throws SQLException {
    List<StoredCheckpoint> out = new ArrayList<>();
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT size, note, created_at FROM checkpoints ORDER BY size")) {
      while (rs.next()) {
        out.add(new StoredCheckpoint(rs.getLong(1), rs.getString(2), rs.getLong(3)));
      }
      return out;
    }
  }
}
