package dev.danmakuledger.edge.retention;

import dev.danmakuledger.edge.store.StoreException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Pruner} periodically inside {@code edge-agent run} when a retention is set
 * (docs/edge-agent.md "Retention and pruning"). It does not compact the file: the freed pages are
 * reused by new records, and {@code edge-agent prune} compacts when the agent is stopped.
 */
public final class RetentionDaemon implements AutoCloseable {
  /** How often the daemon prunes. */
  public static final Duration EVERY = Duration.ofMinutes(10);

  private static final Logger LOG = LoggerFactory.getLogger(RetentionDaemon.class);

  private final ScheduledExecutorService executor;

  private RetentionDaemon(ScheduledExecutorService executor) {
    this.executor = executor;
  }

  /** Prunes now and then every {@link #EVERY}; {@code retention} must be positive. */
  public static RetentionDaemon start(Pruner pruner, Duration retention) {
    if (retention.isNegative() || retention.isZero()) {
      throw new IllegalArgumentException(
          "retention: got " + retention + ", want a positive duration");
    }
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "edge-retention");
              t.setDaemon(true);
              return t;
            });
    executor.scheduleWithFixedDelay(
        () -> pruneOnce(pruner, retention), 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
    return new RetentionDaemon(executor);
  }

  private static void pruneOnce(Pruner pruner, Duration retention) {
    try {
      PruneReport report = pruner.prune(retention);
      if (report.pruned() > 0) {
        LOG.info(
            "pruned {} records (receipt covers {}, {} pruned in total)",
            report.pruned(),
            report.coveredSize(),
            report.prunedTotal());
      }
    } catch (StoreException e) {
      LOG.warn("retention pruning failed, retrying in {}: {}", EVERY, e.getMessage());
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("retention pruning did not stop within 5 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
