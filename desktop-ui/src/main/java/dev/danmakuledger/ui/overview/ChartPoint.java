package dev.danmakuledger.ui.overview;

import java.time.Duration;
import java.time.Instant;

/**
 * One point of an overview chart.
 *
 * @param at when the value was true (for a value over an interval: the interval's end)
 * @param value the value
 * @param step the interval the value summarizes: zero for a sample the console took, one minute for
 *     a minute of the server's history; a chart line continues across gaps up to this plus {@link
 *     OverviewView}'s gap
 */
public record ChartPoint(Instant at, double value, Duration step) {
  public ChartPoint {
    if (at == null || !Double.isFinite(value) || step == null || step.isNegative()) {
      throw new IllegalArgumentException(
          "got at=" + at + " value=" + value + " step=" + step + ", want finite, step >= 0");
    }
  }

  /** A point the console sampled itself. */
  public ChartPoint(Instant at, double value) {
    this(at, value, Duration.ZERO);
  }
}
