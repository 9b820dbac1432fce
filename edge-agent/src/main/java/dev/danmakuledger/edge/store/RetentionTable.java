package dev.danmakuledger.edge.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Retention on the records table (docs/edge-agent.md "Retention and pruning"): empties the
 * canonical bytes of records the server holds for good, keeping everything the Merkle root and
 * exact dedupe need, and gives the freed pages back to the disk.
 */
final class RetentionTable {
  private RetentionTable() {}

  /** See {@link EdgeStore#prune}. A final outcome is CONFIRMED, DUPLICATE, CONFLICT or REJECTED. */
  static long prune(Connection conn, long coveredSize, long keepFrom, long capturedBefore, long now)
      throws SQLException {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "UPDATE records SET canonical = x'', pruned_at = ? WHERE pruned_at IS NULL"
                + " AND idx < ? AND idx < ? AND captured_at <= ?"
                + " AND outcome IN ('CONFIRMED', 'DUPLICATE', 'CONFLICT', 'REJECTED')")) {
      ps.setLong(1, now);
      ps.setLong(2, coveredSize);
      ps.setLong(3, keepFrom);
      ps.setLong(4, capturedBefore);
      return ps.executeUpdate();
    }
  }

  static long prunedCount(Connection conn) throws SQLException {
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT count(*) FROM records WHERE pruned_at IS NOT NULL")) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  /** Checkpoints the write-ahead log and rebuilds the database file ({@code VACUUM}). */
  static void compact(Connection conn) throws SQLException {
    try (Statement st = conn.createStatement()) {
      st.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      st.executeUpdate("VACUUM");
      st.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    }
  }
}
