package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.RetryPolicy;
import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.WireRecord;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import dev.danmakuledger.testkit.TestDevice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ticks (docs/architecture.md §5, "Ticks"): batches of several devices that are ready together
 * commit in one tick, and a tick whose transaction fails because of one batch still commits every
 * other batch. The sequencer is kept busy by a first batch held inside its transaction, so the
 * batches sent meanwhile are all waiting when the next tick starts.
 */
class TickSequencerIT {
  private static final AtomicInteger RUNS = new AtomicInteger();

  private RedisFixture redis;
  private DedupeScripts scripts;
  private Database db;
  private MessageIds ids;
  private BatchIngest ingest;
  private ExecutorService pool;
  private MutableClock clock;

  @BeforeEach
  void start() throws Exception {
    redis = RedisFixture.embedded();
    scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.defaults());
    clock = MutableClock.running();
    String url =
        "jdbc:h2:mem:ticks"
            + RUNS.incrementAndGet()
            + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1";
    db = Database.open(url, null, null);
    HeldCommits.install(url);
    HeldCommits.entered = new CountDownLatch(1);
    HeldCommits.release = new CountDownLatch(1);
    LedgerStore store = new LedgerStore(db, clock);
    ids = MessageIds.lease(scripts, "ticks", Duration.ofMinutes(1), clock);
    ingest = IngestFixtures.ingest(store, db, scripts, ids, clock);
    pool = Executors.newFixedThreadPool(4);
  }

  @AfterEach
  void stop() {
    HeldCommits.release.countDown();
    HeldCommits.held = null;
    HeldCommits.failing = null;
    HeldCommits.failingFrom = null;
    pool.shutdownNow();
    ingest.close();
    ids.close();
    db.close();
    scripts.close();
    redis.close();
  }

  private TestDevice enrolled(String id) {
    return IngestFixtures.enrolled(new LedgerStore(db, clock), clock, id);
  }

  /** Captures two records in {@code room} and sends the device's whole log. */
  private Future<BatchResponse> send(TestDevice d, String room) {
    d.batch(d.record(room, "u", "text of " + d.id), d.record(room, "u", "more of " + d.id));
    return post(d);
  }

  private Future<BatchResponse> post(TestDevice d) {
    return postFrom(d, 0);
  }

  /** Sends the device's log from {@code from} on. */
  private Future<BatchResponse> postFrom(TestDevice d, long from) {
    BatchRequest b = d.resend(from, d.size());
    List<byte[]> bytes = new ArrayList<>();
    for (WireRecord w : b.records()) {
      bytes.add(Base64.getDecoder().decode(w.canonical()));
    }
    return pool.submit(
        () -> ingest.ingest(d.id, b.oldSize(), bytes, b.checkpoint(), null).response());
  }

  /** Sends the held device's batch, then {@code others}' once the sequencer is held by it. */
  private List<Future<BatchResponse>> heldThenTogether(List<TestDevice> others) throws Exception {
    TestDevice holder = enrolled("holder");
    HeldCommits.held = holder.id;
    Future<BatchResponse> first = send(holder, "room-a");
    HeldCommits.entered.await(30, TimeUnit.SECONDS);
    List<Future<BatchResponse>> together = new ArrayList<>();
    for (TestDevice d : others) {
      together.add(send(d, d.id.endsWith("1") ? "room-a" : "room-b"));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ingest.formingTick() < others.size() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(others.size(), ingest.formingTick(), "batches admitted into the next tick");
    HeldCommits.release.countDown();
    assertEquals(2, first.get().outcomes().size());
    return together;
  }

  /**
   * Sends the held device's first two records, then, once their tick commits, its next two: the
   * second batch is chained behind the first.
   */
  private List<Future<BatchResponse>> heldThenNext(TestDevice holder) throws Exception {
    HeldCommits.held = holder.id;
    Future<BatchResponse> first = send(holder, "room-a");
    HeldCommits.entered.await(30, TimeUnit.SECONDS);
    holder.batch(holder.record("room-a", "u", "next"), holder.record("room-a", "u", "and next"));
    Future<BatchResponse> next = postFrom(holder, 2);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ingest.formingTick() < 1 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(
        1, ingest.formingTick(), "the next batch admitted while its predecessor's tick commits");
    return List.of(first, next);
  }

  @Test
  void aDevicesNextBatchJoinsTheTickFormedWhileItsPredecessorCommits() throws Exception {
    List<Future<BatchResponse>> replies = heldThenNext(enrolled("holder"));
    HeldCommits.release.countDown();
    bothConfirmed(replies);
    StageTimes.Snapshot s = ingest.stages().snapshot();
    assertEquals(2, s.batches());
    assertEquals(2, s.ticks(), "one tick each, the second formed during the first's commit");
  }

  /** The first of a device's two batches of two records each, then the second, all confirmed. */
  private static void bothConfirmed(List<Future<BatchResponse>> replies) throws Exception {
    allConfirmed(replies.get(0).get());
    BatchResponse next = replies.get(1).get();
    assertEquals(4, next.verifiedSize());
    for (RecordOutcome o : next.outcomes()) {
      assertEquals(Outcome.CONFIRMED, o.outcome(), o.toString());
    }
  }

  /**
   * The first of {@code d}'s two batches failed as SQL did, the second was refused with the size
   * SQL holds, and the device's records are stored when it resends from there.
   */
  private void firstFailedAndNextRefused(TestDevice d, List<Future<BatchResponse>> replies)
      throws Exception {
    ExecutionException first = assertThrows(ExecutionException.class, replies.get(0)::get);
    assertInstanceOf(StorageUnavailableException.class, first.getCause());
    ExecutionException next = assertThrows(ExecutionException.class, replies.get(1)::get);
    LedgerException refused = assertInstanceOf(LedgerException.class, next.getCause());
    assertEquals(ErrorCode.SIZE_MISMATCH, refused.code());
    assertEquals(0L, refused.extensions().get("verifiedSize"));
    HeldCommits.failing = null;
    assertEquals(4, postFrom(d, 0).get().verifiedSize(), "resent from the verified size");
  }

  @Test
  void aBatchWhosePredecessorsTickFailsIsRefusedWithTheVerifiedSize() throws Exception {
    TestDevice holder = enrolled("holder");
    List<Future<BatchResponse>> replies = heldThenNext(holder);
    HeldCommits.failing = "holder";
    HeldCommits.release.countDown();
    firstFailedAndNextRefused(holder, replies);
  }

  @Test
  void aRetryOfAMessageTheCommittingTickStoresIsItsDuplicateWithoutACollision() throws Exception {
    List<Exception> failedCommits = failedCommits();
    TestDevice holder = enrolled("holder");
    HeldCommits.held = holder.id;
    DanmakuRecord firstRecord = holder.record("room-a", "u", "first");
    DanmakuRecord retried = holder.record("room-a", "u", "sent twice");
    holder.batch(firstRecord, retried);
    Future<BatchResponse> first = postFrom(holder, 0);
    HeldCommits.entered.await(30, TimeUnit.SECONDS);
    DanmakuRecord again = holder.again(retried);
    holder.batch(again, holder.record("room-a", "u", "new"));
    Future<BatchResponse> next = postFrom(holder, 2);
    TestDevice other = enrolled("other");
    Future<BatchResponse> beside = send(other, "room-a");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ingest.formingTick() < 2 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(2, ingest.formingTick(), "both admitted while the first tick commits");
    HeldCommits.release.countDown();
    retryIsDuplicateOfFirst(first.get(), next.get());
    allConfirmed(beside.get());
    assertEquals(List.of(), failedCommits, "no commit collided");
  }

  /**
   * While the held device's tick commits, sends {@code d}'s first two records and, once they are
   * admitted into the next tick, its next two: the second batch is chained behind the first and
   * joins the same tick.
   */
  private List<Future<BatchResponse>> twoBatchesInTheNextTick(TestDevice d) throws Exception {
    TestDevice holder = enrolled("holder");
    HeldCommits.held = holder.id;
    Future<BatchResponse> held = send(holder, "room-a");
    HeldCommits.entered.await(30, TimeUnit.SECONDS);
    Future<BatchResponse> first = send(d, "room-b");
    awaitForming(1);
    d.batch(d.record("room-b", "u", "next"), d.record("room-a", "u", "and next"));
    Future<BatchResponse> next = postFrom(d, 2);
    awaitForming(2);
    assertEquals(2, ingest.formingTick(), "the chained batch admitted into its predecessor's tick");
    HeldCommits.release.countDown();
    allConfirmed(held.get());
    return List.of(first, next);
  }

  private void awaitForming(int batches) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ingest.formingTick() < batches && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
  }

  @Test
  void aDevicesChainedBatchJoinsTheTickThatHoldsItsPredecessor() throws Exception {
    bothConfirmed(twoBatchesInTheNextTick(enrolled("d1")));
    StageTimes.Snapshot s = ingest.stages().snapshot();
    assertEquals(3, s.batches());
    assertEquals(2, s.ticks(), "the held batch's tick, then one tick of both batches of d1");
  }

  @Test
  void aBatchWhosePredecessorFailsInTheSameTickIsRefusedWithTheVerifiedSize() throws Exception {
    TestDevice d = enrolled("d1");
    HeldCommits.failing = d.id;
    HeldCommits.failingFrom = 0L;
    firstFailedAndNextRefused(d, twoBatchesInTheNextTick(d));
  }

  @Test
  void aRetryOfAMessageOfItsPredecessorInTheSameTickIsItsDuplicateWithoutACollision()
      throws Exception {
    List<Exception> failedCommits = failedCommits();
    TestDevice holder = enrolled("holder");
    HeldCommits.held = holder.id;
    Future<BatchResponse> held = send(holder, "room-a");
    HeldCommits.entered.await(30, TimeUnit.SECONDS);
    TestDevice d = enrolled("d1");
    DanmakuRecord firstRecord = d.record("room-b", "u", "first");
    DanmakuRecord retried = d.record("room-b", "u", "sent twice");
    d.batch(firstRecord, retried);
    Future<BatchResponse> first = postFrom(d, 0);
    awaitForming(1);
    d.batch(d.again(retried), d.record("room-b", "u", "new"));
    Future<BatchResponse> next = postFrom(d, 2);
    awaitForming(2);
    assertEquals(2, ingest.formingTick(), "both batches of d1 in the tick formed meanwhile");
    HeldCommits.release.countDown();
    allConfirmed(held.get());
    retryIsDuplicateOfFirst(first.get(), next.get());
    assertEquals(List.of(), failedCommits, "no commit collided");
    assertEquals(2, ingest.stages().snapshot().ticks(), "d1's batches committed in one tick");
  }

  /**
   * The second record of {@code first} was stored, and {@code next} retried it first (its
   * duplicate, at the original's number and message id) and then added a record that was stored.
   */
  private static void retryIsDuplicateOfFirst(BatchResponse first, BatchResponse next) {
    RecordOutcome original = first.outcomes().get(1);
    List<RecordOutcome> outcomes = next.outcomes();
    assertEquals(Outcome.CONFIRMED, original.outcome(), original.toString());
    assertEquals(Outcome.DUPLICATE, outcomes.get(0).outcome(), outcomes.toString());
    assertEquals(original.seq(), outcomes.get(0).seq(), "the original's number");
    assertEquals(original.messageId(), outcomes.get(0).messageId());
    assertEquals(Outcome.CONFIRMED, outcomes.get(1).outcome(), outcomes.toString());
  }

  /** The failures of commits from now on. */
  private List<Exception> failedCommits() {
    List<Exception> failed = new CopyOnWriteArrayList<>();
    ingest.observedBy(
        stage ->
            new StageObserver.Scope() {
              @Override
              public void failed(Exception e) {
                if (stage == PipelineStage.COMMIT) {
                  failed.add(e);
                }
              }

              @Override
              public void end() {}
            });
    return failed;
  }

  private static void allConfirmed(BatchResponse r) {
    assertEquals(2, r.verifiedSize());
    for (RecordOutcome o : r.outcomes()) {
      assertEquals(Outcome.CONFIRMED, o.outcome(), o.toString());
    }
  }

  @Test
  void batchesReadyTogetherCommitInOneTick() throws Exception {
    List<TestDevice> others = List.of(enrolled("d1"), enrolled("d2"), enrolled("d3"));
    List<Future<BatchResponse>> together = heldThenTogether(others);
    for (Future<BatchResponse> f : together) {
      allConfirmed(f.get());
    }
    StageTimes.Snapshot s = ingest.stages().snapshot();
    assertEquals(4, s.batches());
    assertEquals(2, s.ticks(), "the held batch's tick, then one tick of the three");
  }

  @Test
  void aFailingBatchFailsNoOtherBatchOfItsTick() throws Exception {
    List<TestDevice> others = List.of(enrolled("d1"), enrolled("d2"), enrolled("d3"));
    HeldCommits.failing = "d2";
    List<Future<BatchResponse>> together = heldThenTogether(others);
    allConfirmed(together.get(0).get());
    ExecutionException failed = assertThrows(ExecutionException.class, together.get(1)::get);
    assertInstanceOf(StorageUnavailableException.class, failed.getCause());
    allConfirmed(together.get(2).get());
    HeldCommits.failing = null;
    allConfirmed(post(others.get(1)).get());
  }
}
