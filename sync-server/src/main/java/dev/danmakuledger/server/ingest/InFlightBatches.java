package dev.danmakuledger.server.ingest;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.storage.DeviceRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The batches of each device this instance holds at once (docs/architecture.md §5, "Batches in
 * flight"): at most a window of them per device, and a batch whose from-size is the end of one
 * still held is chained behind it. A chained batch that appends at most {@link #MAX_EARLY_RECORDS}
 * records starts once its predecessor was admitted into a tick, from the device row that tick will
 * leave, so that it may join the next tick (it carries the predecessor's commit, which the tick
 * checks before committing it); an empty or a larger one starts once its predecessor finished, from
 * the row it left. Either fails with {@link PredecessorFailedException} when the predecessor failed
 * before that. Waiting takes no SQL read. A batch that continued none held when it arrived, and
 * that its own run then refuses as starting beyond the verified size, is chained after all if the
 * batch it continues arrived meanwhile or arrives within {@link #ARRIVAL_WAIT} (sent just before it
 * on another connection, it was parsed later). Only batches on this instance chain; the device
 * row's optimistic lock stays the authority.
 *
 * <p>A batch's entry leaves when the batch finishes, whatever way, so memory is bounded by the
 * batches being held: a device with none has no entry.
 */
final class InFlightBatches {
  /**
   * Longest a chained batch waits for its predecessor: the write path has no deadline of its own
   * for a tick, so this one bounds only the chaining.
   */
  static final Duration PREDECESSOR_WAIT = Duration.ofSeconds(30);

  /**
   * Longest a batch refused as starting beyond the verified size waits for the batch it continues
   * to arrive: a device sends its batches in log order, each right after the one before, so that
   * one is being read on another connection, or was never sent and the refusal stands.
   */
  static final Duration ARRIVAL_WAIT = Duration.ofMillis(500);

  /**
   * Most records of a chained batch that starts before its predecessor committed. A larger one (a
   * backlog's batches of thousands) waits for the commit: its records' fixed share of the costs is
   * small, and witnessing it ahead holds two large batches in memory at once for no gain where the
   * cores, not the hand-over, are the bound.
   */
  static final long MAX_EARLY_RECORDS = 1_000;

  /** Seconds a device told to keep fewer batches in flight waits before sending again. */
  static final long RETRY_AFTER_SECONDS = 1;

  /** What a finished batch left: its reply and the device row after it. */
  record Settled(IngestResult result, DeviceRow device) {
    Settled {
      Objects.requireNonNull(result, "result");
      Objects.requireNonNull(device, "device");
    }
  }

  /**
   * The device row a batch leaves once its commit is done, and that commit: it fails when the batch
   * failed in its tick.
   */
  record Pending(DeviceRow row, CompletableFuture<?> commit) {
    Pending {
      Objects.requireNonNull(row, "row");
      Objects.requireNonNull(commit, "commit");
    }
  }

  /**
   * How a batch starts.
   *
   * @param after where the predecessor this batch was chained behind leaves the device row, or null
   *     when it was chained behind none
   * @param admitted to call when the batch was admitted into a tick, with what that tick leaves: a
   *     batch chained behind this one then starts from it; calls after the first do nothing
   */
  record Start(Pending after, Consumer<Pending> admitted) {
    Start {
      Objects.requireNonNull(admitted, "admitted");
    }
  }

  /** One batch's own work. */
  interface Batch {
    /** Starts the batch; the future completes when it finished, whatever way. */
    CompletableFuture<Settled> run(Start start);
  }

  /** The batch this one was chained behind failed; nothing of this one was stored. */
  static final class PredecessorFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    PredecessorFailedException(Throwable cause) {
      super("the batch before this one failed: " + cause, cause);
    }
  }

  /**
   * One held batch: where it ends, what it leaves once admitted into a tick, and the device row it
   * left once it finished.
   */
  private static final class Held {
    final long end;
    final CompletableFuture<Pending> inTick = new CompletableFuture<>();
    final CompletableFuture<DeviceRow> after = new CompletableFuture<>();

    Held(long end) {
      this.end = end;
    }
  }

  private final int window;
  private final Duration predecessorWait;
  private final Duration arrivalWait;

  /** By device id, the batches held in arrival order; each list changes only inside compute. */
  private final Map<String, List<Held>> devices = new ConcurrentHashMap<>();

  /**
   * By device id, the batches refused as starting beyond the verified size that wait for the batch
   * they continue to arrive; each list changes only inside the device's compute in {@link
   * #devices}.
   */
  private final Map<String, List<Arrival>> arrivals = new ConcurrentHashMap<>();

  /** A batch from {@code from} waiting for the batch ending there to arrive. */
  private record Arrival(long from, CompletableFuture<Held> found) {}

  private final AtomicInteger held = new AtomicInteger();

  /** Batches chained behind a predecessor that has not finished yet. */
  private final AtomicInteger waiting = new AtomicInteger();

  /**
   * @param window most batches of one device held at once, 1..{@link ServerConfig#MAX_BATCH_WINDOW}
   * @param predecessorWait longest a chained batch waits for its predecessor
   * @param arrivalWait longest a batch refused as starting beyond the verified size waits for the
   *     batch it continues to arrive
   */
  InFlightBatches(int window, Duration predecessorWait, Duration arrivalWait) {
    if (window < 1 || window > ServerConfig.MAX_BATCH_WINDOW) {
      throw new IllegalArgumentException(
          "window: got " + window + ", want 1.." + ServerConfig.MAX_BATCH_WINDOW);
    }
    if (predecessorWait.isNegative() || predecessorWait.isZero()) {
      throw new IllegalArgumentException("predecessorWait: got " + predecessorWait + ", want > 0");
    }
    if (arrivalWait.isNegative()) {
      throw new IllegalArgumentException("arrivalWait: got " + arrivalWait + ", want >= 0");
    }
    this.window = window;
    this.predecessorWait = predecessorWait;
    this.arrivalWait = arrivalWait;
  }

  /** Most batches of one device held at once. */
  int window() {
    return window;
  }

  /** Batches held now, of every device: the {@code danmaku_batches_held} gauge. */
  int held() {
    return held.get();
  }

  /** Batches waiting now for the batch they are chained behind: the seam the tests wait on. */
  int waiting() {
    return waiting.get();
  }

  /**
   * Holds the batch of {@code deviceId} from {@code from} to {@code end} while {@code batch} runs,
   * after the batch held that ends at {@code from}, if there is one. Nothing blocks: a chained
   * batch starts on {@code executor} when its predecessor finished, and the returned future
   * completes when the batch finished.
   *
   * <p>The future fails with {@link LedgerException} {@code rate-limited} (429) when the device has
   * a window of batches held already, {@code overloaded} (503) when the predecessor is not done
   * after the wait, and with {@link PredecessorFailedException} when the predecessor failed.
   */
  CompletableFuture<IngestResult> run(
      String deviceId, long from, long end, Batch batch, Executor executor) {
    Held mine = new Held(end);
    Held predecessor;
    try {
      predecessor = hold(deviceId, from, mine);
    } catch (LedgerException refused) {
      return CompletableFuture.failedFuture(refused);
    }
    held.incrementAndGet();
    CompletableFuture<Settled> done =
        predecessor == null
            ? start(batch, new Start(null, mine.inTick::complete))
                .exceptionallyCompose(
                    e -> {
                      Throwable why = cause(e);
                      if (!(why instanceof LedgerException refused)
                          || !startsBeyond(from, end, refused)) {
                        return CompletableFuture.failedFuture(why);
                      }
                      return arrival(deviceId, from)
                          .thenCompose(
                              late ->
                                  late == null
                                      ? CompletableFuture.<Settled>failedFuture(why)
                                      : after(deviceId, from, end, late, mine, batch, executor));
                    })
            : after(deviceId, from, end, predecessor, mine, batch, executor);
    return done.handle(
        (settled, e) -> {
          held.decrementAndGet();
          devices.computeIfPresent(
              deviceId,
              (id, list) -> {
                list.remove(mine);
                return list.isEmpty() ? null : list;
              });
          if (e != null) {
            mine.inTick.completeExceptionally(cause(e));
            mine.after.completeExceptionally(cause(e));
            throw e instanceof CompletionException c ? c : new CompletionException(e);
          }
          mine.inTick.complete(
              new Pending(settled.device(), CompletableFuture.completedFuture(null)));
          mine.after.complete(settled.device());
          return settled.result();
        });
  }

  /** Starts {@code batch} on this thread; a failure to start is the future's failure. */
  private static CompletableFuture<Settled> start(Batch batch, Start start) {
    try {
      return batch.run(start);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Runs {@code batch} ({@code mine}) on {@code executor} from the row {@code predecessor} leaves:
   * once it was admitted into a tick when the batch appends at most {@link #MAX_EARLY_RECORDS}
   * records, once it finished otherwise (an empty batch, a large one); fails at once if it failed
   * before, or with 503 when it is not there within the wait.
   */
  private CompletableFuture<Settled> after(
      String deviceId,
      long from,
      long end,
      Held predecessor,
      Held mine,
      Batch batch,
      Executor executor) {
    waiting.incrementAndGet();
    CompletableFuture<Pending> leaves =
        end != from && end - from <= MAX_EARLY_RECORDS
            ? predecessor.inTick.copy()
            : predecessor.after.thenApply(
                row -> new Pending(row, CompletableFuture.completedFuture(null)));
    return leaves
        .orTimeout(predecessorWait.toNanos(), TimeUnit.NANOSECONDS)
        .handleAsync(
            (pending, e) -> {
              waiting.decrementAndGet();
              if (e == null) {
                return start(batch, new Start(pending, mine.inTick::complete));
              }
              Throwable why = cause(e);
              return CompletableFuture.<Settled>failedFuture(
                  why instanceof TimeoutException
                      ? notDone(deviceId, from, "after " + predecessorWait.toMillis() + " ms")
                      : new PredecessorFailedException(why));
            },
            executor)
        .thenCompose(f -> f);
  }

  /** What a future failed with, unwrapped from its completion wrapper. */
  static Throwable cause(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  /**
   * Whether {@code refused} says a non-empty batch from {@code from} starts beyond the verified
   * size: then the batch it continues may still be on its way (two batches sent one after the other
   * on two connections may be parsed in the other order).
   */
  private static boolean startsBeyond(long from, long end, LedgerException refused) {
    return end != from
        && refused.code() == ErrorCode.SIZE_MISMATCH
        && refused.extensions().get("verifiedSize") instanceof Long verified
        && verified < from;
  }

  /**
   * The batch ending at {@code from}, once it is held (now, or when it arrives before {@code
   * arrivalWait} passed); null if none did. Nothing waits on a thread in between: the batch's
   * arrival completes the future.
   */
  private CompletableFuture<Held> arrival(String deviceId, long from) {
    CompletableFuture<Held> found = new CompletableFuture<>();
    Arrival waiting = new Arrival(from, found);
    devices.compute(
        deviceId,
        (id, held) -> {
          Held h = held == null ? null : latestEnding(held, from);
          if (h != null) {
            found.complete(h);
          } else {
            arrivals.computeIfAbsent(id, k -> new ArrayList<>()).add(waiting);
          }
          return held;
        });
    return found
        .completeOnTimeout(null, arrivalWait.toNanos(), TimeUnit.NANOSECONDS)
        .whenComplete((h, e) -> forget(deviceId, waiting));
  }

  /** Drops {@code waiting} from the device's batches waiting for another to arrive. */
  private void forget(String deviceId, Arrival waiting) {
    devices.compute(
        deviceId,
        (id, held) -> {
          arrivals.computeIfPresent(
              id,
              (k, list) -> {
                list.remove(waiting);
                return list.isEmpty() ? null : list;
              });
          return held;
        });
  }

  /** The latest of {@code held} that ends at {@code from}, or null. */
  private static Held latestEnding(List<Held> held, long from) {
    for (int i = held.size() - 1; i >= 0; i--) {
      if (held.get(i).end == from) {
        return held.get(i);
      }
    }
    return null;
  }

  /** Adds {@code mine} to the device's batches; returns the latest one ending at {@code from}. */
  private Held hold(String deviceId, long from, Held mine) {
    Held[] predecessor = new Held[1];
    boolean[] full = new boolean[1];
    List<Arrival> arrived = new ArrayList<>();
    devices.compute(
        deviceId,
        (id, held) -> {
          List<Held> list = held == null ? new ArrayList<>(window) : held;
          if (list.size() >= window) {
            full[0] = true;
            return list;
          }
          predecessor[0] = latestEnding(list, from);
          list.add(mine);
          List<Arrival> waiting = arrivals.get(id);
          if (waiting != null) {
            for (Arrival a : waiting) {
              if (a.from() == mine.end) {
                arrived.add(a);
              }
            }
          }
          return list;
        });
    for (Arrival a : arrived) {
      a.found().complete(mine);
    }
    if (full[0]) {
      throw new LedgerException(
          ErrorCode.RATE_LIMITED,
          "device "
              + deviceId
              + " has "
              + window
              + " batches in flight on this instance, the most it holds at once"
              + " (Danmaku-Batch-Window: "
              + window
              + "); keep at most "
              + window
              + " in flight and send this one again once one of them is answered",
          Map.of("retryAfterSeconds", RETRY_AFTER_SECONDS, "batchWindow", (long) window));
    }
    return predecessor[0];
  }

  private static LedgerException notDone(String deviceId, long from, String when) {
    return new LedgerException(
        ErrorCode.OVERLOADED,
        "the batch of device "
            + deviceId
            + " ending at "
            + from
            + " is still in flight on this instance "
            + when
            + "; send this one again once that one is answered");
  }
}
