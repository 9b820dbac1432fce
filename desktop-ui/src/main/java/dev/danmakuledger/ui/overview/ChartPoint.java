package dev.danmakuledger.ui.overview;

import java.time.Instant;

/** One point of an overview chart. */
public record ChartPoint(Instant at, double value) {
  public ChartPoint {
    if (at == null || !Double.isFinite(value)) {
      throw new IllegalArgumentException("got at=" + at + " value=" + value + ", want finite");
    }
  }
}
