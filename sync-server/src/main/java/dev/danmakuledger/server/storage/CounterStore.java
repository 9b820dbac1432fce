package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The cluster-wide monotonic counters (docs/architecture.md §5), split in shards so that concurrent
 * batches of different devices do not queue on one row; a counter's value is the sum of its shards.
 */
final class CounterStore {
  /** Counter shards; a batch writes the shard of its device. */
  static final int SHARDS = 16;

  private final Jdbc jdbc;

  CounterStore(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /** All counters by stored name. */
  public Map<String, Long> counters() {
    Map<String, Long> out = new TreeMap<>();
    for (Map.Entry<String, Long> e :
        jdbc.query(
            "SELECT name, SUM(counter_value) FROM counters GROUP BY name",
            ps -> {},
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  /** Adds to counters outside a batch (e.g. a refused batch), keyed by stored name. */
  public void add(Map<String, Long> deltas) {
    int shard = ThreadLocalRandom.current().nextInt(SHARDS);
    jdbc.inTransaction(
        c -> {
          add(c, deltas, shard);
          return null;
        });
  }

  static int shard(String key) {
    return Math.floorMod(key.hashCode(), SHARDS);
  }

  /** Adds all deltas in one multi-row upsert, rows in name order (no lock-order deadlocks). */
  static void add(Connection c, Map<String, Long> deltas, int shard) throws SQLException {
    Map<String, Long> nonZero = new TreeMap<>();
    deltas.forEach(
        (name, delta) -> {
          if (delta != 0) {
            nonZero.put(name, delta);
          }
        });
    if (nonZero.isEmpty()) {
      return;
    }
    String rows = String.join(",", Collections.nCopies(nonZero.size(), "(?, ?, ?)"));
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO counters (name, shard, counter_value) VALUES "
                + rows
                + " ON DUPLICATE KEY UPDATE counter_value = counter_value + VALUES(counter_value)")) {
      int i = 1;
      for (Map.Entry<String, Long> e : nonZero.entrySet()) {
        ps.setString(i++, e.getKey());
        ps.setInt(i++, shard);
        ps.setLong(i++, e.getValue());
      }
      ps.executeUpdate();
    }
  }
}
