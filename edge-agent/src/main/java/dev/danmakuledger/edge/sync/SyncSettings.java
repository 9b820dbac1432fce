package dev.danmakuledger.edge.sync;

import java.time.Duration;

/**
 * Tunables of the sync client.
 *
 * @param batchSize most records per batch (the server may ask for fewer with 413)
 * @param linger how long the daemon lets new captures accumulate before sending a partial batch
 * @param maxAttempts attempts per request on transient failures before giving up this round
 * @param backoffBase first retry waits up to this long
 * @param backoffCap no retry waits longer than this (unless the server's Retry-After says so)
 */
public record SyncSettings(
    int batchSize, Duration linger, int maxAttempts, Duration backoffBase, Duration backoffCap) {
  /** Server default limit is 1000 records per batch; 500 keeps bodies well under its 4 MiB. */
  public static final int DEFAULT_BATCH_SIZE = 500;

  public SyncSettings {
    if (batchSize < 1 || batchSize > 100_000) {
      throw new IllegalArgumentException("batch size: got " + batchSize + ", want 1..100000");
    }
    if (linger == null || linger.isNegative()) {
      throw new IllegalArgumentException("linger: got " + linger + ", want >= 0");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("max attempts: got " + maxAttempts + ", want >= 1");
    }
    if (backoffBase == null
        || backoffCap == null
        || backoffBase.isNegative()
        || backoffBase.isZero()
        || backoffCap.compareTo(backoffBase) < 0) {
      throw new IllegalArgumentException(
          "backoff: got base " + backoffBase + ", cap " + backoffCap + ", want 0 < base <= cap");
    }
  }

  /** 500 records, 1 s linger, 8 attempts, 200 ms doubling up to 30 s. */
  public static SyncSettings defaults() {
    return new SyncSettings(
        DEFAULT_BATCH_SIZE,
        Duration.ofSeconds(1),
        8,
        Duration.ofMillis(200),
        Duration.ofSeconds(30));
  }

  public SyncSettings withBatchSize(int size) {
    return new SyncSettings(size, linger, maxAttempts, backoffBase, backoffCap);
  }

  public SyncSettings withLinger(Duration d) {
    return new SyncSettings(batchSize, d, maxAttempts, backoffBase, backoffCap);
  }

  public SyncSettings withMaxAttempts(int n) {
    return new SyncSettings(batchSize, linger, n, backoffBase, backoffCap);
  }
}
