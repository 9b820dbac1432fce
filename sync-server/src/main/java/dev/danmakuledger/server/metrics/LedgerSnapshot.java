package dev.danmakuledger.server.metrics;

import dev.danmakuledger.server.storage.Counter;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.RoomStats;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The cluster-wide values {@link LedgerMetrics} exposes, read in one go from SQL: the {@code
 * counters} table (docs/architecture.md §5), the edge duplicate counts the devices report, and the
 * busiest rooms' high-water marks.
 *
 * @param counters the {@code counters} table by stored name ({@link Counter#key()})
 * @param edge edge duplicates, the sum over devices of what each last reported
 * @param busiestRooms at most {@link LedgerMetrics#TOP_ROOMS} rooms, highest mark first
 */
public record LedgerSnapshot(Map<String, Long> counters, long edge, List<RoomStats> busiestRooms) {
  /** Before the first read: every counter zero, no rooms. */
  static final LedgerSnapshot EMPTY = new LedgerSnapshot(Map.of(), 0, List.of());

  /** Copies the members; rejects a negative count or too many rooms. */
  public LedgerSnapshot {
    counters = Map.copyOf(counters);
    busiestRooms = List.copyOf(busiestRooms);
    if (edge < 0) {
      throw new IllegalArgumentException("edge: got " + edge + ", want >= 0");
    }
    if (busiestRooms.size() > LedgerMetrics.TOP_ROOMS) {
      throw new IllegalArgumentException(
          "busiestRooms: got " + busiestRooms.size() + ", want <= " + LedgerMetrics.TOP_ROOMS);
    }
  }

  /** Reads the current values from {@code store}. */
  public static LedgerSnapshot read(LedgerStore store) {
    long edge = 0;
    for (DeviceRow d : store.devices()) {
      edge += d.edge().duplicates();
    }
    List<RoomStats> top =
        store.rooms().stream()
            .sorted(Comparator.comparingLong(RoomStats::highSeq).reversed())
            .limit(LedgerMetrics.TOP_ROOMS)
            .toList();
    return new LedgerSnapshot(store.counters(), edge, top);
  }

  private long get(Counter c) {
    return counters.getOrDefault(c.key(), 0L);
  }

  long batches() {
    return get(Counter.BATCHES);
  }

  long records() {
    return get(Counter.RECORDS);
  }

  long redis() {
    return get(Counter.DUPLICATES_REDIS);
  }

  long sql() {
    return get(Counter.DUPLICATES_SQL);
  }

  long conflicts() {
    return get(Counter.CONFLICTS);
  }

  long forks() {
    return get(Counter.FORKS);
  }

  long badSignatures() {
    return get(Counter.SIGNATURE_FAILURES);
  }

  long tombstones() {
    return get(Counter.TOMBSTONES);
  }

  long sealedGaps() {
    return get(Counter.SEALED_GAPS);
  }

  long stuckEpisodes() {
    return get(Counter.STUCK_EPISODES);
  }

  long unverifiedReports() {
    return get(Counter.UNVERIFIED_REPORTS);
  }
}
