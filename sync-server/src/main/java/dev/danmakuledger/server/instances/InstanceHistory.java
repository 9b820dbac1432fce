package dev.danmakuledger.server.instances;

import dev.danmakuledger.protocol.wire.admin.ClusterHistory;
import dev.danmakuledger.server.storage.ClusterMinute;
import dev.danmakuledger.server.storage.HistoryStore;
import dev.danmakuledger.server.storage.MinuteCounts;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The cluster-wide history of {@code GET /admin/history} (docs/sync-server.md, "History"): the
 * per-minute samples of every instance, summed per minute, with every minute of the window present
 * (minutes no instance sampled are zero, with {@code instances = 0}).
 */
public final class InstanceHistory {
  private final HistoryStore store;
  private final Clock clock;

  public InstanceHistory(HistoryStore store, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * The last {@code minutes} minutes, the running one included, oldest first.
   *
   * @throws IllegalArgumentException unless {@code 1 <= minutes <= ClusterHistory.MAX_MINUTES}
   * @throws dev.danmakuledger.server.storage.StorageUnavailableException when SQL cannot be read
   */
  public ClusterHistory last(int minutes) {
    if (minutes < 1 || minutes > ClusterHistory.MAX_MINUTES) {
      throw new IllegalArgumentException(
          "minutes: got " + minutes + ", want 1.." + ClusterHistory.MAX_MINUTES);
    }
    long newest = HistoryStore.minuteOf(clock.millis());
    long oldest = newest - (minutes - 1) * HistoryStore.MINUTE_MS;
    Map<Long, ClusterMinute> byMinute = new HashMap<>();
    for (ClusterMinute m : store.cluster(oldest, newest + HistoryStore.MINUTE_MS)) {
      byMinute.put(m.minuteStartMs(), m);
    }
    List<ClusterHistory.Minute> points = new ArrayList<>(minutes);
    for (long m = oldest; m <= newest; m += HistoryStore.MINUTE_MS) {
      ClusterMinute c = byMinute.getOrDefault(m, new ClusterMinute(m, 0, MinuteCounts.ZERO));
      points.add(point(c));
    }
    return new ClusterHistory(minutes, points);
  }

  private static ClusterHistory.Minute point(ClusterMinute m) {
    MinuteCounts c = m.counts();
    return new ClusterHistory.Minute(
        Instant.ofEpochMilli(m.minuteStartMs()).toString(),
        m.instances(),
        c.batches(),
        c.records(),
        c.confirmed(),
        c.pending(),
        c.duplicates(),
        c.conflicts(),
        c.rejected(),
        c.subscribers(),
        perBatch(c.admitMicros(), c.batches()),
        perBatch(c.commitMicros(), c.batches()));
  }

  private static double perBatch(long micros, long batches) {
    return batches == 0 ? 0 : Math.round(micros / 1000.0 / batches * 1000) / 1000.0;
  }
}
