package dev.danmakuledger.edge.bloom;

import java.time.Duration;

/**
 * Sizing of the rotating filter: {@code expectedItems} keys per generation, combined target
 * false-positive rate {@code falsePositiveRate}, and the longest a generation stays current.
 */
public record BloomConfig(long expectedItems, double falsePositiveRate, Duration window) {
  public BloomConfig {
    if (expectedItems < 1) {
      throw new IllegalArgumentException(
          "bloom expected items: got " + expectedItems + ", want >= 1");
    }
    if (!(falsePositiveRate > 0 && falsePositiveRate < 1)) {
      throw new IllegalArgumentException(
          "bloom false-positive rate: got " + falsePositiveRate + ", want in (0, 1)");
    }
    if (window == null || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("bloom window: got " + window + ", want > 0");
    }
  }

  /** 200,000 keys per generation, p = 0.001, a one-day window. */
  public static BloomConfig defaults() {
    return new BloomConfig(200_000, 0.001, Duration.ofDays(1));
  }

  /** The rate each of the two generations is sized for, so their union stays within p. */
  public double perGenerationRate() {
    return falsePositiveRate / 2;
  }

  BloomFilter newGeneration() {
    return BloomFilter.create(expectedItems, perGenerationRate());
  }
}
