package dev.danmakuledger.edge.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The server's answers kept on the records rows (docs/architecture.md §4: CONFIRMED, PENDING,
 * DUPLICATE, CONFLICT, REJECTED with seq, message id and reason).
 */
final class OutcomeTable {
  private OutcomeTable() {}

  /**
   * Updates one row per outcome, in the caller's transaction, as one JDBC batch (the driver binds
   * and steps every row in one call instead of one call a row).
   *
   * @throws StoreException if a row is missing
   */
  static void apply(Connection conn, List<OutcomeUpdate> updates)
      throws SQLException, StoreException {
    if (updates.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        conn.prepareStatement(
            "UPDATE records SET outcome = ?, seq = ?, message_id = ?, outcome_reason = ?,"
                + " synced_at = ? WHERE idx = ?")) {
      for (OutcomeUpdate u : updates) {
        ps.setString(1, u.outcome());
        if (u.seq() == null) {
          ps.setNull(2, Types.INTEGER);
        } else {
          ps.setLong(2, u.seq());
        }
        ps.setString(3, u.messageId());
        ps.setString(4, u.reason());
        ps.setLong(5, u.syncedAt());
        ps.setLong(6, u.index());
        ps.addBatch();
      }
      int[] updated = ps.executeBatch();
      for (int i = 0; i < updated.length; i++) {
        if (updated[i] != 1) {
          throw new StoreException(
              "outcome for index " + updates.get(i).index() + ": got no such record");
        }
      }
    }
  }

  /** Record counts by outcome, "UNSYNCED" for records without one. */
  static Map<String, Long> counts(Connection conn) throws SQLException {
    Map<String, Long> out = new LinkedHashMap<>();
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT coalesce(outcome, 'UNSYNCED'), count(*) FROM records GROUP BY 1 ORDER BY 1")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
      return out;
    }
  }

  /**
   * The capture time of the oldest record without an outcome; the partial index of schema version 3
   * keeps this from scanning the synced records.
   */
  static Optional<Long> oldestUnsynced(Connection conn) throws SQLException {
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT min(captured_at) FROM records WHERE outcome IS NULL")) {
      if (!rs.next()) {
        return Optional.empty();
      }
      long at = rs.getLong(1);
      return rs.wasNull() ? Optional.empty() : Optional.of(at);
    }
  }
}
