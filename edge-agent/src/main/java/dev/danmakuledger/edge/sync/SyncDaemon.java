package dev.danmakuledger.edge.sync;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Background sync for a running agent: {@code run} pushes pending records in batches, with
 * configurable batch size and linger (docs/sync.md). A run starts when a full batch is pending, or
 * when records have been pending for the linger time. A failed run is retried on the daemon's own
 * timer after a full-jitter backoff (at least the server's {@code Retry-After}), whether or not
 * anything new is captured meanwhile; the retry time is part of the queue state {@code edge-agent
 * status} reports (docs/edge-agent.md, "Sync state"). A fork, quarantine or refused enrolment stops
 * syncing (capture goes on) and is logged as an error, since only an operator can resolve it.
 */
public final class SyncDaemon implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SyncDaemon.class);

  /** How often the daemon looks at the log size. */
  static final Duration POLL = Duration.ofMillis(100);

  private final Syncer syncer;
  private final LongSupplier logSize;
  private final SyncSettings settings;
  private final Backoff backoff;
  private final Sleeper sleeper;
  private final LongSupplier nanoTime;
  private final Thread thread;
  private volatile boolean closed;
  private volatile SyncReport last;
  private volatile SyncStoppedException stoppedBy;

  private SyncDaemon(
      Syncer syncer,
      LongSupplier logSize,
      SyncSettings settings,
      Backoff backoff,
      Sleeper sleeper,
      LongSupplier nanoTime) {
    this.syncer = syncer;
    this.logSize = logSize;
    this.settings = settings;
    this.backoff = backoff;
    this.sleeper = sleeper;
    this.nanoTime = nanoTime;
    this.thread = new Thread(this::loop, "edge-sync");
    this.thread.setDaemon(true);
  }

  /**
   * Starts syncing in the background.
   *
   * @param logSize the committed local log size (e.g. from the capture service)
   */
  public static SyncDaemon start(
      Syncer syncer,
      LongSupplier logSize,
      SyncSettings settings,
      Backoff backoff,
      Sleeper sleeper) {
    return start(syncer, logSize, settings, backoff, sleeper, System::nanoTime);
  }

  /**
   * As {@link #start(Syncer, LongSupplier, SyncSettings, Backoff, Sleeper)} measuring the linger
   * with {@code nanoTime} (a monotonic reading in nanoseconds), so a test can drive time by hand.
   */
  public static SyncDaemon start(
      Syncer syncer,
      LongSupplier logSize,
      SyncSettings settings,
      Backoff backoff,
      Sleeper sleeper,
      LongSupplier nanoTime) {
    SyncDaemon d =
        new SyncDaemon(
            Objects.requireNonNull(syncer),
            Objects.requireNonNull(logSize),
            Objects.requireNonNull(settings),
            Objects.requireNonNull(backoff),
            Objects.requireNonNull(sleeper),
            Objects.requireNonNull(nanoTime));
    d.thread.start();
    return d;
  }

  /** The report of the last finished run, or null. */
  public SyncReport lastReport() {
    return last;
  }

  /** Why syncing stopped for good, or null while it runs. */
  public SyncStoppedException stoppedBy() {
    return stoppedBy;
  }

  private void loop() {
    long synced = -1;
    long pendingSince = -1;
    int failures = 0;
    while (!closed) {
      try {
        long size = logSize.getAsLong();
        long now = nanoTime.getAsLong();
        boolean pending = size > synced;
        if (pending && pendingSince < 0) {
          pendingSince = now;
        }
        boolean due =
            pending
                && (synced < 0
                    || failures > 0
                    || size - synced >= settings.batchSize()
                    || now - pendingSince >= settings.linger().toNanos());
        if (!due) {
          sleeper.sleep(POLL);
          continue;
        }
        try {
          SyncReport r = syncer.sync();
          last = r;
          synced = r.localSize();
          pendingSince = -1;
          failures = 0;
        } catch (SyncStoppedException e) {
          if (!e.retryLater()) {
            stoppedBy = e;
            LOG.error("sync stopped, capture continues: {}", e.getMessage());
            return;
          }
          failures++;
          retryLater(failures, e, e.getMessage());
        } catch (java.io.IOException | RuntimeException e) {
          failures++;
          retryLater(failures, e, e.toString());
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Waits out the backoff before retry {@code failures} on this thread, so the retry runs with no
   * new capture; the wait is at least the server's {@code Retry-After} when it sent one.
   */
  private void retryLater(int failures, Exception e, String what) throws InterruptedException {
    if (closed) {
      return; // the run failed because close() interrupted it
    }
    Duration retryAfter =
        e.getCause() instanceof ServerProblemException p ? p.retryAfter().orElse(null) : null;
    Duration wait = backoff.delay(Math.min(failures, 20), retryAfter);
    LOG.warn("sync failed, retry {} in {} ms: {}", failures, wait.toMillis(), what);
    syncer.state().retryIn(wait);
    try {
      sleeper.sleep(wait);
    } finally {
      syncer.state().retrying();
    }
  }

  /** Stops after the run in progress, if any. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
