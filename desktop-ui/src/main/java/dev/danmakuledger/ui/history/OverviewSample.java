package dev.danmakuledger.ui.history;

import java.time.Instant;

/**
 * One point of the overview charts: the server's cumulative counters at {@code at}.
 *
 * @param at when the console read them
 * @param recordsPerSecond the server's current ingest rate
 * @param outcomes all record outcomes so far (every kind)
 * @param duplicates duplicates caught so far, all layers
 * @param alerts alerts raised so far
 */
public record OverviewSample(
    Instant at, double recordsPerSecond, long outcomes, long duplicates, long alerts) {
  public OverviewSample {
    if (at == null) {
      throw new IllegalArgumentException("got at=null, want an instant");
    }
    if (!(recordsPerSecond >= 0) || outcomes < 0 || duplicates < 0 || alerts < 0) {
      throw new IllegalArgumentException(
          "got recordsPerSecond="
              + recordsPerSecond
              + " outcomes="
              + outcomes
              + " duplicates="
              + duplicates
              + " alerts="
              + alerts
              + ", want all >= 0");
    }
  }
}
