package dev.danmakuledger.server.storage;

import java.util.List;

/**
 * The per-minute samples each instance writes of its own counters (table {@code instance_minutes},
 * docs/sync-server.md "History"), and their cluster-wide sums. A sample is keyed by (minute,
 * instance); writing it again keeps the larger of the stored and the new value of every column, so
 * an instance may rewrite its running minute as it grows, and a repeated or late write never counts
 * twice.
 */
public final class HistoryStore {
  /** One minute in milliseconds. */
  public static final long MINUTE_MS = 60_000;

  /** Longest instance id stored ({@code instance_id VARCHAR(64)}). */
  public static final int MAX_INSTANCE_CHARS = 64;

  private static final String COLUMNS =
      "batches, records, confirmed, pending, duplicates, conflicts, rejected, subscribers,"
          + " admit_micros, commit_micros";

  /** Insert, or keep the larger value of every column (each only grows within a minute). */
  private static final String UPSERT =
      "INSERT INTO instance_minutes (minute_start_ms, instance_id, "
          + COLUMNS
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE "
          + String.join(
              ", ",
              java.util.Arrays.stream(COLUMNS.split(",\\s*"))
                  .map(c -> c + " = GREATEST(" + c + ", VALUES(" + c + "))")
                  .toList());

  private final Jdbc jdbc;

  public HistoryStore(Database db) {
    this.jdbc = new Jdbc(db.dataSource());
  }

  /** The start of the minute {@code epochMs} falls in. */
  public static long minuteOf(long epochMs) {
    return Math.floorDiv(epochMs, MINUTE_MS) * MINUTE_MS;
  }

  /**
   * Writes (or grows) the sample of {@code instance} for the minute starting at {@code
   * minuteStartMs}.
   *
   * @throws IllegalArgumentException for a minute not on a minute boundary or an instance id that
   *     is empty or longer than {@link #MAX_INSTANCE_CHARS}
   * @throws StorageUnavailableException when SQL cannot be written
   */
  public void write(long minuteStartMs, String instance, MinuteCounts c) {
    if (minuteOf(minuteStartMs) != minuteStartMs) {
      throw new IllegalArgumentException(
          "minuteStartMs: got " + minuteStartMs + ", want a multiple of " + MINUTE_MS);
    }
    if (instance == null || instance.isEmpty() || instance.length() > MAX_INSTANCE_CHARS) {
      throw new IllegalArgumentException(
          "instance: got " + instance + ", want 1.." + MAX_INSTANCE_CHARS + " characters");
    }
    jdbc.update(
        UPSERT,
        ps -> {
          ps.setLong(1, minuteStartMs);
          ps.setString(2, instance);
          ps.setLong(3, c.batches());
          ps.setLong(4, c.records());
          ps.setLong(5, c.confirmed());
          ps.setLong(6, c.pending());
          ps.setLong(7, c.duplicates());
          ps.setLong(8, c.conflicts());
          ps.setLong(9, c.rejected());
          ps.setLong(10, c.subscribers());
          ps.setLong(11, c.admitMicros());
          ps.setLong(12, c.commitMicros());
        });
  }

  /**
   * The cluster-wide minutes with at least one sample, from {@code fromMs} (inclusive) to {@code
   * toMs} (exclusive), oldest first.
   */
  public List<ClusterMinute> cluster(long fromMs, long toMs) {
    return jdbc.query(
        "SELECT minute_start_ms, COUNT(*), SUM(batches), SUM(records), SUM(confirmed),"
            + " SUM(pending), SUM(duplicates), SUM(conflicts), SUM(rejected), SUM(subscribers),"
            + " SUM(admit_micros), SUM(commit_micros) FROM instance_minutes"
            + " WHERE minute_start_ms >= ? AND minute_start_ms < ?"
            + " GROUP BY minute_start_ms ORDER BY minute_start_ms",
        ps -> {
          ps.setLong(1, fromMs);
          ps.setLong(2, toMs);
        },
        rs ->
            new ClusterMinute(
                rs.getLong(1),
                rs.getInt(2),
                new MinuteCounts(
                    rs.getLong(3),
                    rs.getLong(4),
                    rs.getLong(5),
                    rs.getLong(6),
                    rs.getLong(7),
                    rs.getLong(8),
                    rs.getLong(9),
                    rs.getLong(10),
                    rs.getLong(11),
                    rs.getLong(12))));
  }

  /** Deletes every sample of a minute that started before {@code beforeMs}; returns how many. */
  public int prune(long beforeMs) {
    return jdbc.update(
        "DELETE FROM instance_minutes WHERE minute_start_ms < ?", ps -> ps.setLong(1, beforeMs));
  }
}
