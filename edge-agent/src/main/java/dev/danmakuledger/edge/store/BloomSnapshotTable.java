package dev.danmakuledger.edge.store;

import dev.danmakuledger.edge.bloom.BloomSnapshot;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * The one-row {@code bloom_snapshot} table: both Bloom generations and the log size they cover, so
 * a restart replays only the keys captured since (docs/edge-agent.md "Bloom filter sizing").
 */
final class BloomSnapshotTable {
  private BloomSnapshotTable() {}

  static void save(Connection conn, BloomSnapshot s) throws SQLException {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "INSERT OR REPLACE INTO bloom_snapshot(id, expected_items, false_positive,"
                + " covered_size, current_started_at, rotations, current_items, current_bits,"
                + " previous_items, previous_bits) VALUES (0, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setLong(1, s.expectedItems());
      ps.setDouble(2, s.falsePositiveRate());
      ps.setLong(3, s.coveredSize());
      ps.setLong(4, s.currentStartedAt());
      ps.setLong(5, s.rotations());
      ps.setLong(6, s.currentItems());
      ps.setBytes(7, s.currentBits());
      ps.setLong(8, s.previousItems());
      ps.setBytes(9, s.previousBits());
      ps.executeUpdate();
    }
  }

  static Optional<BloomSnapshot> load(Connection conn) throws SQLException {
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT expected_items, false_positive, covered_size, current_started_at,"
                    + " rotations, current_items, current_bits, previous_items, previous_bits"
                    + " FROM bloom_snapshot WHERE id = 0")) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(
          new BloomSnapshot(
              rs.getLong(1),
              rs.getDouble(2),
              rs.getLong(3),
              rs.getLong(4),
              rs.getLong(5),
              rs.getLong(6),
              rs.getBytes(7),
              rs.getLong(8),
              rs.getBytes(9)));
    }
  }
}
