package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.store.AppendBatch;
import dev.danmakuledger.edge.store.DuplicateKeyException;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoreFullException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer thread's group commit (docs/edge-agent.md "Durability and crash safety"): drains the
 * {@link CaptureQueue}, commits each batch's {@link Plan} in one store transaction and only then
 * answers its futures, moves the {@link CommittedLog} and feeds the Bloom filter. While a
 * transaction commits, a planner thread plans the next queued batch on top of it; that plan is used
 * only if the transaction commits, and dropped otherwise. When the next batch is already waiting,
 * the post-commit step (Bloom feed, stats, answering the futures) of a committed batch is handed to
 * the planner thread too, ahead of the plan it makes next, so the writer starts the next
 * transaction at once. A capture that finds the writer idle and nothing queued is committed and
 * answered by the thread that submitted it ({@link #commitAlone}), with no hand-over on its ack
 * path; captures submitted meanwhile queue for the writer's next group commit.
 *
 * <p>The Bloom filter forgets keys older than two generations; a repeat of such a key reaches the
 * store's UNIQUE index, which rolls the transaction back, and the batch is redone with an exact
 * lookup for every key. Dedupe counts are persisted with the next capture transaction, and by the
 * owner on close.
 */
final class CaptureWriter implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(CaptureWriter.class);

  private final CaptureQueue queue;
  private final EdgeStore store;
  private final BatchPlanner planner;
  private final CommittedLog log;
  private final BloomKeeper bloom;
  private final Clock clock;
  private final long maxStoreBytes;
  private final double configuredFpr;

  /** Plans the next queued batch while the writer waits for a commit. */
  private final ExecutorService ahead =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread t = new Thread(task, "edge-capture-planner");
            t.setDaemon(true);
            return t;
          });

  /**
   * The last post-commit step handed to the planner thread (Bloom feed, stats, acks), or null; the
   * writer waits for it before it reads the Bloom filter itself.
   */
  private Future<?> settling;

  // Owned by the holder of the queue's turn: the writer thread, or a thread committing a lone
  // capture (and by the owner before the writer starts and after it ends). The turn's monitor
  // orders one holder's writes before the next holder's reads.
  private DedupeCounts totals;
  private DedupeCounts unpersisted = DedupeCounts.ZERO;

  private volatile DedupeStats stats;

  CaptureWriter(
      CaptureQueue queue,
      EdgeStore store,
      BatchPlanner planner,
      CommittedLog log,
      BloomKeeper bloom,
      DedupeCounts totals,
      Clock clock,
      long maxStoreBytes,
      double configuredFpr) {
    this.queue = queue;
    this.store = store;
    this.planner = planner;
    this.log = log;
    this.bloom = bloom;
    this.totals = totals;
    this.clock = clock;
    this.maxStoreBytes = maxStoreBytes;
    this.configuredFpr = configuredFpr;
    publish();
  }

  DedupeStats stats() {
    return stats;
  }

  /** Stops the planner thread and persists the counts of repeats since the last commit. */
  void finish() throws StoreException {
    ahead.shutdown();
    if (!unpersisted.isZero()) {
      store.incrementCounters(unpersisted.columns());
      unpersisted = DedupeCounts.ZERO;
    }
  }

  @Override
  public void run() {
    CaptureQueue.Batch batch = queue.take();
    Plan plan = null;
    while (batch != null) {
      CaptureQueue.Batch following = null;
      try {
        Carry carry = process(batch, plan, true);
        following = carry.next;
        plan = carry.plan;
      } catch (RuntimeException e) {
        failAll(batch.requests(), e);
        plan = null;
      }
      if (following != null) {
        batch = following;
      } else {
        settle();
        queue.release();
        batch = batch.stop() ? null : queue.take();
      }
    }
    settle();
  }

  /**
   * Commits one capture on the calling thread and answers it there, with no hand-over to the writer
   * thread and back. The caller holds the queue's turn ({@link CaptureQueue#claimIdle}), so the
   * writer is idle: its post-commit steps are settled, its planner thread has nothing to do, and
   * what is submitted meanwhile waits in the queue for the writer's next group commit.
   */
  void commitAlone(Pending capture) {
    CaptureQueue.Batch alone = new CaptureQueue.Batch(List.of(capture), false);
    try {
      process(alone, null, false);
    } catch (RuntimeException e) {
      failAll(alone.requests(), e);
    }
  }

  private static void failAll(List<Pending> requests, RuntimeException e) {
    LOG.error("capture batch failed", e);
    for (Pending p : requests) {
      p.future().completeExceptionally(e);
    }
  }

  /**
   * Waits for the post-commit step handed to the planner thread, so the Bloom filter holds every
   * committed key and every committed capture is answered.
   */
  private void settle() {
    Future<?> s = settling;
    settling = null;
    awaitQuietly(s);
  }

  /** The batch to process next, if one was drained, and its plan if one was made ahead. */
  private record Carry(CaptureQueue.Batch next, Plan plan) {
    static final Carry NONE = new Carry(null, null);
  }

  /**
   * Commits one batch ({@code plan}, if not null, is its plan on the committed state). With {@code
   * drainNext}, the next queued batch is drained and, while the transaction runs, planned on top of
   * this one on the planner thread.
   */
  private Carry process(CaptureQueue.Batch batch, Plan plan, boolean drainNext) {
    if (batch.requests().isEmpty()) {
      return Carry.NONE;
    }
    boolean exactForAll = false;
    if (plan == null) {
      settle();
    }
    Plan round =
        plan != null
            ? plan
            : planner.plan(batch.requests(), false, log.size(), log.range(), Map.of(), true);
    CaptureQueue.Batch next = null;
    Future<Plan> planned = null;
    try {
      while (true) {
        if (round.newRecords.isEmpty()) {
          count(round.counts);
          publish();
          round.complete(null);
          return new Carry(next, null);
        }
        planned = null;
        if (drainNext && next == null && !batch.stop()) {
          next = queue.poll();
          if (next != null && !next.requests().isEmpty()) {
            Plan base = round;
            List<Pending> upcoming = next.requests();
            planned =
                ahead.submit(
                    () ->
                        planner.plan(
                            upcoming, false, base.newSize, base.range, base.planned, false));
          }
        }
        DedupeCounts written = round.counts.plus(DedupeCounter.CAPTURES, round.newRecords.size());
        try {
          long onDisk = store.sizeOnDiskBytes();
          if (onDisk >= maxStoreBytes) {
            throw new StoreFullException(onDisk, maxStoreBytes);
          }
          store.append(
              new AppendBatch(
                  log.size(),
                  round.newRecords,
                  round.range.toBytes(),
                  round.note,
                  clock.millis(),
                  unpersisted.plus(written).columns()));
        } catch (DuplicateKeyException e) {
          awaitQuietly(planned);
          if (exactForAll) {
            round.complete(e);
            reload();
            return new Carry(next, null);
          }
          LOG.debug(
              "key {} was older than the Bloom window; redoing the batch exactly",
              e.idempotencyKey());
          exactForAll = true;
          settle();
          round = planner.plan(batch.requests(), true, log.size(), log.range(), Map.of(), true);
          continue;
        } catch (StoreException e) {
          awaitQuietly(planned);
          LOG.warn("capture transaction failed: {}", e.getMessage());
          count(round.counts);
          reload();
          publish();
          round.complete(e);
          return new Carry(next, null);
        }
        unpersisted = DedupeCounts.ZERO;
        totals = totals.plus(written);
        log.advance(round);
        Plan following = awaitQuietly(planned);
        Plan committed = round;
        DedupeCounts counted = totals;
        long size = log.size();
        Runnable settle =
            () -> {
              try {
                bloom.addCommitted(committed.newHashes);
                stats = stats(counted);
                committed.complete(null);
                bloom.snapshotIfDue(size);
              } catch (RuntimeException e) {
                LOG.error("answering a committed capture batch failed", e);
              }
            };
        if (next == null) {
          // Nothing drained behind: answer from this thread, with no hand-over on the ack path.
          settle.run();
        } else {
          // The next batch is ready to commit: the planner thread feeds the Bloom filter and
          // answers this one (both before it plans the batch after next) while it commits.
          settling = ahead.submit(settle);
        }
        return new Carry(next, following);
      }
    } catch (RuntimeException e) {
      awaitQuietly(planned);
      failAll(batch.requests(), e);
      return new Carry(next, null);
    }
  }

  /** Counts a batch whose counts are not persisted with it. */
  private void count(DedupeCounts counts) {
    unpersisted = unpersisted.plus(counts);
    totals = totals.plus(counts);
  }

  /**
   * The result of a task on the planner thread, or null if it failed (a plan made ahead is then
   * made again on the batch's turn).
   */
  private static <T> T awaitQuietly(Future<T> planned) {
    if (planned == null) {
      return null;
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return planned.get();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } catch (ExecutionException e) {
      LOG.debug("a task on the planner thread failed", e.getCause());
      return null;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void reload() {
    try {
      log.reload(store);
    } catch (StoreException | RuntimeException e) {
      LOG.error("cannot reload the committed log state; keeping the last known one", e);
    }
  }

  /** Publishes the stats of the writer's totals (after the post-commit step handed over). */
  private void publish() {
    settle();
    stats = stats(totals);
  }

  private DedupeStats stats(DedupeCounts counts) {
    return DedupeStats.of(counts, configuredFpr, bloom.memoryBytes(), bloom.rotations());
  }
}
