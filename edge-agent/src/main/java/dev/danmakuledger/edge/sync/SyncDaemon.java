package dev.danmakuledger.edge.sync;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Background sync for a running agent: {@code run} pushes pending records in batches, with
 * configurable batch size and linger (docs/sync.md). A run starts when a full batch is pending, or
 * when records have been pending for the linger time. Transient failures wait with backoff and try
 * again; a fork, quarantine or refused enrolment stops syncing (capture goes on) and is logged as
 * an error, since only an operator can resolve it.
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
  private final Thread thread;
  private volatile boolean closed;
  private volatile SyncReport last;
  private volatile SyncStoppedException stoppedBy;

  private SyncDaemon(
      Syncer syncer,
      LongSupplier logSize,
      SyncSettings settings,
      Backoff backoff,
      Sleeper sleeper) {
    this.syncer = syncer;
    this.logSize = logSize;
    this.settings = settings;
    this.backoff = backoff;
    this.sleeper = sleeper;
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
    SyncDaemon d =
        new SyncDaemon(
            Objects.requireNonNull(syncer),
            Objects.requireNonNull(logSize),
            Objects.requireNonNull(settings),
            Objects.requireNonNull(backoff),
            Objects.requireNonNull(sleeper));
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
        long now = System.nanoTime();
        boolean pending = size > synced;
        if (pending && pendingSince < 0) {
          pendingSince = now;
        }
        boolean due =
            pending
                && (synced < 0
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
          LOG.warn("sync failed, will retry: {}", e.getMessage());
          sleeper.sleep(backoff.delay(Math.min(failures, 20), null));
        } catch (java.io.IOException | RuntimeException e) {
          failures++;
          LOG.warn("sync failed, will retry: {}", e.toString());
          sleeper.sleep(backoff.delay(Math.min(failures, 20), null));
        }
      } catch (InterruptedException e) {
        return;
      }
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
