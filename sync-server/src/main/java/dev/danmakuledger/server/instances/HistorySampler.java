package dev.danmakuledger.server.instances;

import dev.danmakuledger.server.storage.HistoryStore;
import dev.danmakuledger.server.storage.MinuteCounts;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this instance's per-minute history (docs/sync-server.md, "History") to SQL, off the
 * request path: every {@code every} it rewrites the running minute's sample with what this instance
 * did since the minute began (its own batches, outcomes, admit and commit time, peak subscribers),
 * and every {@link #PRUNE_EVERY} it deletes samples older than the retention. A write that fails is
 * logged and caught up by the next one: what it would have counted is counted by the next sample
 * that succeeds, in that sample's minute, so nothing is counted twice or lost while SQL is back
 * within the retention.
 */
public final class HistorySampler implements AutoCloseable {
  /** Default interval between two writes of the running minute. */
  public static final Duration DEFAULT_EVERY = Duration.ofSeconds(10);

  /** Interval between two prunes. */
  static final Duration PRUNE_EVERY = Duration.ofMinutes(10);

  private static final Logger log = LoggerFactory.getLogger(HistorySampler.class);

  private final HistoryStore store;
  private final String instance;
  private final Supplier<MinuteCounts> totals;
  private final LongSupplier subscribers;
  private final Duration retention;
  private final Clock clock;
  private ScheduledExecutorService timer;
  private long minute;
  private MinuteCounts minuteBase;
  private MinuteCounts written;
  private long peakSubscribers;
  private long lastPruneMs = Long.MIN_VALUE;
  private boolean failing;

  /**
   * @param instance this instance's id in the registry
   * @param totals this instance's cumulative counts since it started (subscribers ignored)
   * @param subscribers open room-stream subscribers now
   * @param retention how long samples are kept, at least one hour
   */
  public HistorySampler(
      HistoryStore store,
      String instance,
      Supplier<MinuteCounts> totals,
      LongSupplier subscribers,
      Duration retention,
      Clock clock) {
    if (retention.compareTo(Duration.ofHours(1)) < 0) {
      throw new IllegalArgumentException("retention: got " + retention + ", want >= 1 hour");
    }
    this.store = Objects.requireNonNull(store, "store");
    this.instance = Objects.requireNonNull(instance, "instance");
    this.totals = Objects.requireNonNull(totals, "totals");
    this.subscribers = Objects.requireNonNull(subscribers, "subscribers");
    this.retention = retention;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.minute = HistoryStore.minuteOf(clock.millis());
    this.minuteBase = totals.get();
    this.written = minuteBase;
  }

  /** Samples now and then every {@code every}. */
  public synchronized void start(Duration every) {
    if (every.toMillis() < 100) {
      throw new IllegalArgumentException("every: got " + every + ", want >= 100ms");
    }
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "instance-history");
              t.setDaemon(true);
              return t;
            });
    long ms = every.toMillis();
    timer.scheduleWithFixedDelay(this::sample, 0, ms, TimeUnit.MILLISECONDS);
  }

  /**
   * Writes the running minute's sample (and prunes when due); never throws.
   *
   * @return true when the sample was written
   */
  public synchronized boolean sample() {
    long now = clock.millis();
    long m = HistoryStore.minuteOf(now);
    MinuteCounts t;
    long subs;
    try {
      t = totals.get();
      subs = subscribers.getAsLong();
    } catch (RuntimeException e) {
      log.warn("instance history: cannot read this instance's counters: {}", e.toString());
      return false;
    }
    if (m != minute) {
      // a new minute starts from what was last written: a failed write's counts move to it
      minute = m;
      minuteBase = written;
      peakSubscribers = 0;
    }
    peakSubscribers = Math.max(peakSubscribers, subs);
    try {
      store.write(minute, instance, t.since(minuteBase, peakSubscribers));
      written = t;
      if (failing) {
        log.info("instance history: writing samples again");
        failing = false;
      }
    } catch (RuntimeException e) {
      if (!failing) {
        log.warn("instance history: cannot write the sample of this minute: {}", e.toString());
        failing = true;
      }
      return false;
    }
    prune(now);
    return true;
  }

  private void prune(long now) {
    if (lastPruneMs != Long.MIN_VALUE && now - lastPruneMs < PRUNE_EVERY.toMillis()) {
      return;
    }
    lastPruneMs = now;
    try {
      int n = store.prune(HistoryStore.minuteOf(now - retention.toMillis()));
      if (n > 0) {
        log.debug("instance history: pruned {} samples older than {}", n, retention);
      }
    } catch (RuntimeException e) {
      log.warn("instance history: cannot prune old samples: {}", e.toString());
    }
  }

  /** Stops sampling after one last sample, so the running minute holds what this instance did. */
  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
      timer = null;
    }
    sample();
  }
}
