package dev.danmakuledger.edge.sync;

import java.time.Duration;

/**
 * Tunables of the sync client.
 *
 * @param batchSize most records per batch when the device is live (the server may ask for fewer
 *     with 413)
 * @param linger how long the daemon lets new captures accumulate before sending a partial batch
 * @param maxAttempts attempts per request on transient failures before giving up this round
 * @param backoffBase first retry waits up to this long
 * @param backoffCap no retry waits longer than this (unless the server's Retry-After says so)
 * @param backlogBatchSize records per batch while at least this many wait (a device catching up
 *     after being offline): fewer, larger batches cost the server less per record
 *     (docs/benchmarks.md, backlog); never below {@code batchSize}
 * @param window most batches in flight at once (docs/sync.md, "Batches in flight"), 1..{@value
 *     #MAX_WINDOW}; the server's announced window may lower it, 1 sends one batch at a time
 */
public record SyncSettings(
    int batchSize,
    Duration linger,
    int maxAttempts,
    Duration backoffBase,
    Duration backoffCap,
    int backlogBatchSize,
    int window) {
  /** Records per batch while live: small batches keep each acknowledgement quick. */
  public static final int DEFAULT_BATCH_SIZE = 500;

  /**
   * The server's default limit of records per batch ({@code --max-records}): a device catching up
   * drained a backlog of 300,000 records a third to a half faster in batches of 10,000 than in
   * batches of 1,000 (docs/benchmarks.md, "backlog: batches of 10,000"). A batch is also cut to the
   * bytes the server's default body limit takes ({@link BatchBody#MAX_RECORD_BYTES}).
   */
  public static final int DEFAULT_BACKLOG_BATCH_SIZE = 10_000;

  /**
   * Batches in flight by default, when the server announces at least as many: four hide the round
   * trip of a 4G link (80 ms) behind the upload of batches of 10,000 records.
   */
  public static final int DEFAULT_WINDOW = 4;

  /** The most batches in flight a server may announce or an agent may ask for. */
  public static final int MAX_WINDOW = 16;

  public SyncSettings {
    if (window < 1 || window > MAX_WINDOW) {
      throw new IllegalArgumentException(
          "window: got " + window + ", want 1.." + MAX_WINDOW + " batches in flight");
    }
    if (batchSize < 1 || batchSize > 100_000) {
      throw new IllegalArgumentException("batch size: got " + batchSize + ", want 1..100000");
    }
    if (backlogBatchSize < 1 || backlogBatchSize > 100_000) {
      throw new IllegalArgumentException(
          "backlog batch size: got " + backlogBatchSize + ", want 1..100000");
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

  /** Settings with the default backlog batch size (or {@code batchSize} if that is larger). */
  public SyncSettings(
      int batchSize, Duration linger, int maxAttempts, Duration backoffBase, Duration backoffCap) {
    this(
        batchSize,
        linger,
        maxAttempts,
        backoffBase,
        backoffCap,
        Math.max(batchSize, DEFAULT_BACKLOG_BATCH_SIZE),
        DEFAULT_WINDOW);
  }

  /**
   * Records of the next batch when {@code backlog} records wait: the backlog batch size when at
   * least that many wait, else the live batch size.
   */
  public int batchFor(long backlog) {
    return backlog >= backlogBatchSize ? Math.max(batchSize, backlogBatchSize) : batchSize;
  }

  /**
   * 500 records (10,000 while catching up), 1 s linger, 8 attempts, 200 ms doubling up to 30 s, 4
   * batches in flight.
   */
  public static SyncSettings defaults() {
    return new SyncSettings(
        DEFAULT_BATCH_SIZE,
        Duration.ofSeconds(1),
        8,
        Duration.ofMillis(200),
        Duration.ofSeconds(30));
  }

  public SyncSettings withBatchSize(int size) {
    return new SyncSettings(
        size,
        linger,
        maxAttempts,
        backoffBase,
        backoffCap,
        Math.max(size, backlogBatchSize),
        window);
  }

  /** These settings with {@code size} records per batch while catching up. */
  public SyncSettings withBacklogBatchSize(int size) {
    return new SyncSettings(batchSize, linger, maxAttempts, backoffBase, backoffCap, size, window);
  }

  public SyncSettings withLinger(Duration d) {
    return new SyncSettings(
        batchSize, d, maxAttempts, backoffBase, backoffCap, backlogBatchSize, window);
  }

  public SyncSettings withMaxAttempts(int n) {
    return new SyncSettings(
        batchSize, linger, n, backoffBase, backoffCap, backlogBatchSize, window);
  }

  /** These settings with at most {@code n} batches in flight (1 sends one at a time). */
  public SyncSettings withWindow(int n) {
    return new SyncSettings(
        batchSize, linger, maxAttempts, backoffBase, backoffCap, backlogBatchSize, n);
  }
}
