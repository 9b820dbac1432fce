package dev.danmakuledger.bench.ingest;

import java.util.Arrays;

/** Latency samples in nanoseconds, with exact percentiles (the runs are small enough to sort). */
public final class Latencies {
  private long[] samples = new long[1024];
  private int count;

  /** Adds one sample; not thread-safe (one instance per thread, then {@link #merge}). */
  public void add(long nanos) {
    if (count == samples.length) {
      samples = Arrays.copyOf(samples, count * 2);
    }
    samples[count++] = nanos;
  }

  public synchronized void merge(Latencies other) {
    for (int i = 0; i < other.count; i++) {
      add(other.samples[i]);
    }
  }

  public int count() {
    return count;
  }

  /**
   * The {@code p}-th percentile in milliseconds (nearest rank), or NaN without samples.
   *
   * @param p 0 < p <= 100
   */
  public double percentileMs(double p) {
    if (!(p > 0 && p <= 100)) {
      throw new IllegalArgumentException("percentile: got " + p + ", want 0 < p <= 100");
    }
    if (count == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(samples, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * count);
    return sorted[Math.max(0, rank - 1)] / 1e6;
  }
}
