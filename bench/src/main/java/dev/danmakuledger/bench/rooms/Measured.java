package dev.danmakuledger.bench.rooms;

import dev.danmakuledger.bench.ingest.Latencies;

/**
 * Latencies from a capture to its acknowledgement or delivery, split at the moment the measured
 * part of a run began: those of captures made before it (the warm-up) are kept apart and not
 * reported.
 */
final class Measured {
  private final Latencies warmUp = new Latencies();
  private final Latencies measured = new Latencies();
  private volatile long from;

  /** With {@code warmingUp}, every capture counts as warm-up until {@link #start}. */
  Measured(boolean warmingUp) {
    this.from = warmingUp ? Long.MAX_VALUE : Long.MIN_VALUE;
  }

  /** Captures made at or after {@code nanoTime} are measured. */
  void start(long nanoTime) {
    from = nanoTime;
  }

  /** The capture made at {@code capturedAt} arrived at {@code now} (both nanoTime). */
  void add(long capturedAt, long now) {
    Latencies into = capturedAt >= from ? measured : warmUp;
    synchronized (into) {
      into.add(now - capturedAt);
    }
  }

  Latencies measured() {
    return measured;
  }

  Latencies warmUp() {
    return warmUp;
  }
}
