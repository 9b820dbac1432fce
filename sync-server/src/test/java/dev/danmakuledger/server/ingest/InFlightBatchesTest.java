package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.storage.DeviceRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The batches of a device in flight (docs/architecture.md §5, "Batches in flight"): the window at
 * its boundary, a chained batch starting from the row its predecessor left, a failed predecessor, a
 * predecessor this instance does not hold, and the wait's bound. Batches are held with latches.
 */
final class InFlightBatchesTest {
  private static final Duration LONG = Duration.ofSeconds(30);

  /** The wait for a batch's predecessor to arrive, short so a refusal that stands comes soon. */
  private static final Duration ARRIVAL = Duration.ofMillis(100);

  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private static DeviceRow row(long verifiedSize) {
    DeviceRow d = DeviceRow.enrolled("d", new byte[32], "d+key", new byte[0], new byte[32], 0);
    return verifiedSize == 0
        ? d
        : d.verifiedUpTo(
            verifiedSize, new byte[0], new byte[32], "note", "receipt", 0, null, d.edge());
  }

  private static InFlightBatches.Settled settled(DeviceRow device) {
    return new InFlightBatches.Settled(
        new IngestResult(
            new BatchResponse(device.id(), device.verifiedSize(), null, List.of(), null), false),
        device);
  }

  /** One batch's work done on the calling thread: what {@link InFlightBatches.Batch} starts. */
  private interface Work {
    InFlightBatches.Settled run(DeviceRow after);
  }

  /**
   * Runs {@code work} as a batch of {@code device} on the pool and waits for it, as the HTTP layer
   * waits for a reply: its refusal or failure is thrown.
   */
  private IngestResult run(InFlightBatches batches, String device, long from, long end, Work work)
      throws InFlightBatches.PredecessorFailedException, InterruptedException {
    try {
      return batches
          .run(
              device,
              from,
              end,
              start -> CompletableFuture.supplyAsync(() -> work.run(rowAfter(start)), pool),
              pool)
          .get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof InFlightBatches.PredecessorFailedException p) {
        throw p;
      }
      throw new IllegalStateException(e);
    }
  }

  /** The row {@code start} begins from: the one its predecessor leaves, or null. */
  private static DeviceRow rowAfter(InFlightBatches.Start start) {
    return start.after() == null ? null : start.after().row();
  }

  /** The refusal of a batch that starts beyond the device's {@code verified} size. */
  private static LedgerException beyond(long verified) {
    return new LedgerException(
        ErrorCode.SIZE_MISMATCH, "verified " + verified, Map.of("verifiedSize", verified));
  }

  /** A batch that tells {@code started} it runs, then waits for {@code release}. */
  private Future<IngestResult> held(
      InFlightBatches batches,
      long from,
      long end,
      CountDownLatch started,
      CountDownLatch release,
      RuntimeException failure) {
    return pool.submit(
        () ->
            run(
                batches,
                "d",
                from,
                end,
                after -> {
                  started.countDown();
                  await(release);
                  if (failure != null) {
                    throw failure;
                  }
                  return settled(row(end));
                }));
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(30, TimeUnit.SECONDS), "latch not opened");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Spins until {@code n} batches are held (a chained batch shows no other sign of waiting). */
  private static void heldAre(InFlightBatches batches, int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (batches.held() != n && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(n, batches.held(), "batches held");
  }

  @Test
  void aChainedBatchStartsFromTheRowItsPredecessorLeft() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<IngestResult> first = held(batches, 0, 2, started, release, null);
    await(started);
    List<DeviceRow> seen = new ArrayList<>();
    CountDownLatch followerRan = new CountDownLatch(1);
    Future<IngestResult> second =
        pool.submit(
            () ->
                run(
                    batches,
                    "d",
                    2,
                    5,
                    after -> {
                      seen.add(after);
                      followerRan.countDown();
                      return settled(row(5));
                    }));
    heldAre(batches, 2);
    assertEquals(1, followerRan.getCount(), "the follower ran before its predecessor finished");
    release.countDown();
    assertEquals(2, first.get().response().verifiedSize());
    assertEquals(5, second.get().response().verifiedSize());
    assertEquals(1, seen.size());
    assertEquals(2, seen.get(0).verifiedSize(), "the row the predecessor left");
    heldAre(batches, 0);
  }

  @Test
  void theFollowersOfAFailedBatchFailWithoutRunning() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    IllegalStateException boom = new IllegalStateException("injected: commit failed");
    Future<IngestResult> first = held(batches, 0, 2, started, release, boom);
    await(started);
    CountDownLatch ran = new CountDownLatch(1);
    Future<IngestResult> second =
        pool.submit(
            () ->
                run(
                    batches,
                    "d",
                    2,
                    4,
                    after -> {
                      ran.countDown();
                      return settled(row(4));
                    }));
    heldAre(batches, 2);
    Future<IngestResult> third =
        pool.submit(() -> run(batches, "d", 4, 6, after -> settled(row(6))));
    heldAre(batches, 3);
    release.countDown();
    assertSame(boom, assertThrows(ExecutionException.class, first::get).getCause());
    assertInstanceOf(
        InFlightBatches.PredecessorFailedException.class,
        assertThrows(ExecutionException.class, second::get).getCause());
    assertInstanceOf(
        InFlightBatches.PredecessorFailedException.class,
        assertThrows(ExecutionException.class, third::get).getCause(),
        "a follower of a follower that failed fails too");
    assertEquals(1, ran.getCount(), "the follower never ran");
    heldAre(batches, 0);
  }

  @Test
  void aBatchContinuingNoneHeldRunsAtOnceWithoutARow() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<IngestResult> first = held(batches, 0, 2, started, release, null);
    await(started);
    List<DeviceRow> seen = new ArrayList<>();
    run(
        batches,
        "d",
        3,
        5,
        after -> {
          seen.add(after);
          return settled(row(0));
        });
    assertNull(seen.get(0), "from 3 continues no batch held (the one held ends at 2)");
    release.countDown();
    first.get();
    run(
        batches,
        "d",
        2,
        4,
        after -> {
          seen.add(after);
          return settled(row(4));
        });
    assertNull(seen.get(1), "a batch that finished is held no more");
  }

  /**
   * [2, 4) of device d, run on the pool: its first run (seen with no row) does {@code first}, then
   * is refused as starting beyond the verified size 0; a run after that settles at 4. Every run's
   * row goes into {@code seen}.
   */
  private Future<IngestResult> refusedFirst(
      InFlightBatches batches, List<DeviceRow> seen, Runnable first) {
    return pool.submit(
        () ->
            run(
                batches,
                "d",
                2,
                4,
                after -> {
                  seen.add(after);
                  if (after == null) {
                    first.run();
                    throw beyond(0);
                  }
                  return settled(row(4));
                }));
  }

  @Test
  void aBatchWhosePredecessorArrivedWhileItWasReadIsChainedAfterAll() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    CountDownLatch predecessorStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<DeviceRow> seen = new ArrayList<>();
    List<Future<IngestResult>> predecessor = new ArrayList<>();
    AtomicBoolean refused = new AtomicBoolean();
    Future<IngestResult> r =
        refusedFirst(
            batches,
            seen,
            () -> {
              // [0, 2) arrives while this one is read, and the device has verified 0
              predecessor.add(held(batches, 0, 2, predecessorStarted, release, null));
              await(predecessorStarted);
              refused.set(true);
            });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (batches.waiting() != 1 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertTrue(refused.get(), "refused as starting beyond the verified size");
    assertEquals(1, batches.waiting(), "chained behind [0, 2) after all");
    heldAre(batches, 2);
    assertEquals(1, seen.size(), "not run again before [0, 2) finished");
    assertTrue(!r.isDone(), "waiting for [0, 2)");
    release.countDown();
    assertEquals(4, r.get().response().verifiedSize());
    assertNull(seen.get(0));
    assertEquals(2, seen.get(1).verifiedSize(), "run again from the row [0, 2) left");
    assertEquals(2, predecessor.get(0).get().response().verifiedSize());
    LedgerException alone =
        assertThrows(
            LedgerException.class,
            () ->
                run(
                    batches,
                    "d",
                    6,
                    8,
                    after -> {
                      throw beyond(4);
                    }));
    assertEquals(ErrorCode.SIZE_MISMATCH, alone.code(), "none arrived: refused as before");
  }

  @Test
  void aBatchWhosePredecessorArrivesAfterItsRefusalIsChainedWithinTheWait() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, LONG);
    List<DeviceRow> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    Future<IngestResult> r = refusedFirst(batches, seen, () -> {});
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (seen.isEmpty() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(1, seen.size(), "refused as starting beyond the verified size");
    assertTrue(!r.isDone(), "waiting for the batch it continues to arrive");
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<IngestResult> predecessor = held(batches, 0, 2, started, release, null);
    await(started);
    release.countDown();
    assertEquals(2, predecessor.get().response().verifiedSize());
    assertEquals(4, r.get().response().verifiedSize());
    assertEquals(2, seen.get(1).verifiedSize(), "run again from the row [0, 2) left");
  }

  @Test
  void aRefusalStandsWhenNoPredecessorArrivesWithinTheWait() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    long t0 = System.nanoTime();
    LedgerException refused =
        assertThrows(
            LedgerException.class,
            () ->
                run(
                    batches,
                    "d",
                    2,
                    4,
                    after -> {
                      throw beyond(0);
                    }));
    assertEquals(ErrorCode.SIZE_MISMATCH, refused.code());
    assertTrue(
        System.nanoTime() - t0 >= ARRIVAL.toNanos(), "refused only after the wait for arrival");
    heldAre(batches, 0);
    LedgerException other =
        assertThrows(
            LedgerException.class,
            () ->
                run(
                    batches,
                    "d",
                    0,
                    2,
                    after -> {
                      throw new LedgerException(ErrorCode.INVALID_FIELD, "bad record");
                    }));
    assertEquals(ErrorCode.INVALID_FIELD, other.code(), "other refusals are not held back");
  }

  @Test
  void exactlyTheWindowIsHeldAndOneMoreIsRateLimited() throws Exception {
    int window = 3;
    InFlightBatches batches = new InFlightBatches(window, LONG, ARRIVAL);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Future<IngestResult>> inFlight = new ArrayList<>();
    inFlight.add(held(batches, 0, 1, started, release, null));
    await(started);
    for (int i = 1; i < window; i++) {
      long from = i;
      inFlight.add(
          pool.submit(() -> run(batches, "d", from, from + 1, a -> settled(row(from + 1)))));
      heldAre(batches, i + 1);
    }
    LedgerException refused =
        assertThrows(
            LedgerException.class,
            () -> run(batches, "d", window, window + 1, a -> settled(row(window + 1))));
    assertEquals(ErrorCode.RATE_LIMITED, refused.code());
    assertEquals(1L, refused.extensions().get("retryAfterSeconds"));
    assertEquals((long) window, refused.extensions().get("batchWindow"));
    assertTrue(refused.getMessage().contains("keep at most 3 in flight"), refused.getMessage());
    assertEquals(window, batches.held(), "the refused batch is not held");
    assertEquals(
        2,
        run(batches, "e", 0, 2, a -> settled(row(2))).response().verifiedSize(),
        "another device has a window of its own");
    release.countDown();
    for (Future<IngestResult> f : inFlight) {
      f.get();
    }
    assertEquals(
        window + 1,
        run(batches, "d", window, window + 1, a -> settled(row(window + 1)))
            .response()
            .verifiedSize());
  }

  @Test
  void aFollowerWaitsForItsPredecessorNoLongerThanTheBound() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, Duration.ofMillis(50), ARRIVAL);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<IngestResult> first = held(batches, 0, 2, started, release, null);
    await(started);
    LedgerException late =
        assertThrows(LedgerException.class, () -> run(batches, "d", 2, 4, a -> settled(row(4))));
    assertEquals(ErrorCode.OVERLOADED, late.code());
    assertEquals(503, late.code().status());
    assertTrue(late.getMessage().contains("still in flight"), late.getMessage());
    release.countDown();
    first.get();
    heldAre(batches, 0);
  }

  @Test
  void aChainedBatchWaitsHoldingNoThread() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      CompletableFuture<InFlightBatches.Settled> committing = new CompletableFuture<>();
      CompletableFuture<IngestResult> first = batches.run("d", 0, 2, start -> committing, one);
      List<DeviceRow> seen = new ArrayList<>();
      CompletableFuture<IngestResult> second =
          batches.run(
              "d",
              2,
              5,
              start -> {
                seen.add(rowAfter(start));
                return CompletableFuture.completedFuture(settled(row(5)));
              },
              one);
      assertEquals(1, batches.waiting(), "the second is chained behind the first");
      assertEquals(
          "free",
          one.submit(() -> "free").get(30, TimeUnit.SECONDS),
          "the only thread of the executor is not held by the waiting batch");
      assertTrue(!second.isDone() && seen.isEmpty(), "the second waits for the first");
      committing.complete(settled(row(2)));
      assertEquals(2, first.get(30, TimeUnit.SECONDS).response().verifiedSize());
      assertEquals(5, second.get(30, TimeUnit.SECONDS).response().verifiedSize());
      assertEquals(2, seen.get(0).verifiedSize(), "started from the row the first left");
      assertEquals(0, batches.waiting());
      heldAre(batches, 0);
    } finally {
      one.shutdownNow();
    }
  }

  @Test
  void aChainedBatchStartsOnceItsPredecessorWasHandedToATick() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    CompletableFuture<InFlightBatches.Settled> committing = new CompletableFuture<>();
    CompletableFuture<String> tick = new CompletableFuture<>();
    AtomicReference<Consumer<InFlightBatches.Pending>> admitted = new AtomicReference<>();
    CompletableFuture<IngestResult> first =
        batches.run(
            "d",
            0,
            2,
            start -> {
              admitted.set(start.admitted());
              return committing;
            },
            pool);
    CompletableFuture<InFlightBatches.Start> started = new CompletableFuture<>();
    CompletableFuture<IngestResult> second = noting(batches, 2, 5, started);
    assertEquals(1, batches.waiting(), "chained behind the first");
    assertTrue(!started.isDone(), "not before the first was admitted into a tick");
    admitted.get().accept(new InFlightBatches.Pending(row(2), tick));
    InFlightBatches.Start start = started.get(30, TimeUnit.SECONDS);
    assertEquals(2, start.after().row().verifiedSize(), "from the row the first's tick leaves");
    assertSame(tick, start.after().commit(), "carrying the first's commit");
    assertTrue(!first.isDone(), "while the first still commits");
    assertEquals(5, second.get(30, TimeUnit.SECONDS).response().verifiedSize());
    committing.complete(settled(row(2)));
    assertEquals(2, first.get(30, TimeUnit.SECONDS).response().verifiedSize());
    heldAre(batches, 0);
  }

  /**
   * [0, 2) of device d: admitted into a tick at once (with a commit that never completes), finished
   * when {@code committing} completes.
   */
  private CompletableFuture<IngestResult> admittedFirst(
      InFlightBatches batches, CompletableFuture<InFlightBatches.Settled> committing) {
    return batches.run(
        "d",
        0,
        2,
        start -> {
          start.admitted().accept(new InFlightBatches.Pending(row(2), new CompletableFuture<>()));
          return committing;
        },
        pool);
  }

  /** [from, end) of device d: tells {@code started} how it started, then settles at {@code end}. */
  private CompletableFuture<IngestResult> noting(
      InFlightBatches batches,
      long from,
      long end,
      CompletableFuture<InFlightBatches.Start> started) {
    return batches.run(
        "d",
        from,
        end,
        start -> {
          started.complete(start);
          return CompletableFuture.completedFuture(settled(row(end)));
        },
        pool);
  }

  @Test
  void aLargeChainedBatchWaitsForItsPredecessorToFinish() throws Exception {
    long large = InFlightBatches.MAX_EARLY_RECORDS + 1;
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    CompletableFuture<InFlightBatches.Settled> committing = new CompletableFuture<>();
    CompletableFuture<IngestResult> first = admittedFirst(batches, committing);
    CompletableFuture<InFlightBatches.Start> started = new CompletableFuture<>();
    CompletableFuture<IngestResult> second = noting(batches, 2, 2 + large, started);
    assertEquals(1, batches.waiting());
    assertTrue(!started.isDone(), "not before the first committed");
    committing.complete(settled(row(2)));
    assertTrue(started.get(30, TimeUnit.SECONDS).after().commit().isDone());
    assertEquals(2 + large, second.get(30, TimeUnit.SECONDS).response().verifiedSize());
    assertEquals(2, first.get(30, TimeUnit.SECONDS).response().verifiedSize());
  }

  @Test
  void aChainedBatchOfTheMostRecordsStartsEarly() throws Exception {
    long most = InFlightBatches.MAX_EARLY_RECORDS;
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    CompletableFuture<InFlightBatches.Settled> committing = new CompletableFuture<>();
    admittedFirst(batches, committing);
    CompletableFuture<InFlightBatches.Start> started = new CompletableFuture<>();
    noting(batches, 2, 2 + most, started);
    assertTrue(
        !started.get(30, TimeUnit.SECONDS).after().commit().isDone(),
        "started while the first still commits");
    committing.complete(settled(row(2)));
  }

  @Test
  void anEmptyChainedBatchWaitsForItsPredecessorToFinish() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    CompletableFuture<InFlightBatches.Settled> committing = new CompletableFuture<>();
    CompletableFuture<IngestResult> first = admittedFirst(batches, committing);
    CompletableFuture<InFlightBatches.Start> started = new CompletableFuture<>();
    CompletableFuture<IngestResult> empty = noting(batches, 2, 2, started);
    assertEquals(1, batches.waiting(), "an empty batch answers from a committed row only");
    assertTrue(!started.isDone());
    committing.complete(settled(row(2)));
    InFlightBatches.Start start = started.get(30, TimeUnit.SECONDS);
    assertEquals(2, start.after().row().verifiedSize());
    assertTrue(start.after().commit().isDone(), "the row it starts from is committed");
    assertEquals(2, empty.get(30, TimeUnit.SECONDS).response().verifiedSize());
    assertEquals(2, first.get(30, TimeUnit.SECONDS).response().verifiedSize());
  }

  @Test
  void aBatchChainedBehindOneThatFailsBeforeItsTickFailsToo() throws Exception {
    InFlightBatches batches = new InFlightBatches(4, LONG, ARRIVAL);
    CompletableFuture<InFlightBatches.Settled> refused = new CompletableFuture<>();
    CompletableFuture<IngestResult> first = batches.run("d", 0, 2, start -> refused, pool);
    CompletableFuture<InFlightBatches.Start> started = new CompletableFuture<>();
    CompletableFuture<IngestResult> second = noting(batches, 2, 5, started);
    refused.completeExceptionally(new LedgerException(ErrorCode.BAD_PROOF, "root differs"));
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> second.get(30, TimeUnit.SECONDS));
    assertInstanceOf(InFlightBatches.PredecessorFailedException.class, e.getCause());
    assertTrue(!started.isDone(), "nothing of it ran");
    assertThrows(ExecutionException.class, () -> first.get(30, TimeUnit.SECONDS));
    heldAre(batches, 0);
  }

  @Test
  void theWindowIsOneToSixteen() {
    for (int bad : new int[] {0, -1, ServerConfig.MAX_BATCH_WINDOW + 1}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> new InFlightBatches(bad, LONG, ARRIVAL));
      assertEquals("window: got " + bad + ", want 1..16", e.getMessage());
    }
    assertEquals(1, new InFlightBatches(1, LONG, ARRIVAL).window());
    assertEquals(16, new InFlightBatches(16, LONG, ARRIVAL).window());
  }
}
