package dev.danmakuledger.bench.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The ledger's rate per window of records sent, as the store grows (docs/benchmarks.md, "e2e as the
 * store grows"): the run's records are cut into {@code count} equal windows, and the time at which
 * the running total crossed each window's end is kept. Thread-safe: every device's thread adds what
 * it sent.
 */
final class GrowthWindows {
  /** Runs shorter than this get no windows: one window would be too short to mean anything. */
  static final long MIN_RECORDS = 200_000;

  private final long size;
  private final long startNanos;
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLongArray ends;

  private GrowthWindows(long size, int count, long startNanos) {
    this.size = size;
    this.startNanos = startNanos;
    this.ends = new AtomicLongArray(count);
  }

  /**
   * Windows for a run of {@code records} records starting at {@code startNanos}; none (an empty
   * tracker) for runs below {@value #MIN_RECORDS} records.
   */
  static GrowthWindows of(long records, int count, long startNanos) {
    if (count < 2) {
      throw new IllegalArgumentException("windows: got " + count + ", want >= 2");
    }
    if (records < MIN_RECORDS) {
      return new GrowthWindows(Long.MAX_VALUE, 0, startNanos);
    }
    return new GrowthWindows(records / count, count, startNanos);
  }

  /** Counts {@code n} records sent at {@code nowNanos}. */
  void add(long n, long nowNanos) {
    long after = sent.addAndGet(n);
    long before = after - n;
    for (long i = before / size; i < after / size && i < ends.length(); i++) {
      ends.compareAndSet((int) i, 0, nowNanos);
    }
  }

  /** The windows whose end was reached, in order. */
  List<GrowthWindow> windows() {
    List<GrowthWindow> out = new ArrayList<>();
    long previous = startNanos;
    for (int i = 0; i < ends.length(); i++) {
      long end = ends.get(i);
      if (end == 0) {
        break;
      }
      double seconds = Math.max(1e-9, (end - previous) / 1e9);
      out.add(new GrowthWindow(i * size, (i + 1) * size, size / seconds));
      previous = end;
    }
    return out;
  }
}
