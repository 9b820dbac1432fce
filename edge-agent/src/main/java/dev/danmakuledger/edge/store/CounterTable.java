package dev.danmakuledger.edge.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code counters} table: cumulative dedupe counters by name, incremented inside the capture
 * transaction that caused them (docs/architecture.md §5, check 1).
 */
final class CounterTable {
  private CounterTable() {}

  /** Adds the non-zero deltas, in the caller's transaction. */
  static void add(Connection conn, Map<String, Long> deltas) throws SQLException {
    if (deltas.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        conn.prepareStatement(
            "INSERT INTO counters(name, value) VALUES (?, ?) "
                + "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value")) {
      for (Map.Entry<String, Long> d : deltas.entrySet()) {
        if (d.getValue() != 0) {
          ps.setString(1, d.getKey());
          ps.setLong(2, d.getValue());
          ps.executeUpdate();
        }
      }
    }
  }

  static Map<String, Long> all(Connection conn) throws SQLException {
    Map<String, Long> out = new LinkedHashMap<>();
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT name, value FROM counters ORDER BY name")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
      return out;
    }
  }
}
