package dev.danmakuledger.server.storage;

import java.util.Objects;

/**
 * One minute of the cluster-wide history: the sum over every instance that wrote a sample for it.
 *
 * @param minuteStartMs start of the minute, epoch milliseconds, a multiple of 60 000
 * @param instances how many instances wrote a sample for this minute
 * @param counts their counts, summed (subscribers: the sum of each instance's peak)
 */
public record ClusterMinute(long minuteStartMs, int instances, MinuteCounts counts) {
  public ClusterMinute {
    if (minuteStartMs % HistoryStore.MINUTE_MS != 0) {
      throw new IllegalArgumentException(
          "minuteStartMs: got " + minuteStartMs + ", want a multiple of 60000");
    }
    if (instances < 0) {
      throw new IllegalArgumentException("instances: got " + instances + ", want >= 0");
    }
    Objects.requireNonNull(counts, "counts");
  }
}
