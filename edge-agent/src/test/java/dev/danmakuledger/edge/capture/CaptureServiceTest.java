package dev.danmakuledger.edge.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoreFullException;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.edge.verify.VerifyReport;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.record.InvalidRecordException;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaptureServiceTest {
  @TempDir Path dir;
  private final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T12:00:00Z"));
  private TestDevice device;

  @AfterEach
  void close() throws Exception {
    if (device != null) {
      device.close();
    }
  }

  @Test
  void captureAppendsASignedDurableRecord() throws Exception {
    device = TestDevice.create(dir, clock);
    CaptureAck ack = device.capture.capture(device.request("alice", 1, "你好 🎉 <&>"));
    assertEquals(0, ack.index());
    assertFalse(ack.repeat());
    assertEquals(clock.millis(), ack.capturedAt());

    var stored = device.store.findByKey(ack.idempotencyKey()).orElseThrow();
    DanmakuRecord r = CanonicalRecord.decode(stored.canonical());
    assertEquals("你好 🎉 <&>", r.text());
    assertEquals(0, r.index());
    Checkpoint cp =
        Checkpoints.open(
            device.store.latestCheckpoint().orElseThrow().note(),
            DeviceLog.origin("dev-1"),
            device.identity.signer().verifier());
    assertEquals(1, cp.size());
    assertEquals(HexFormat.of().formatHex(cp.root()), device.capture.logStatus().rootHex());
    assertTrue(device.verify().ok());
  }

  @Test
  void repeatReturnsTheOriginalAckAndChangesNothing() throws Exception {
    device = TestDevice.create(dir, clock);
    CaptureAck first = device.capture.capture(device.request("alice", 1, "hi"));
    String root = device.capture.logStatus().rootHex();
    clock.advance(Duration.ofMinutes(5));
    CaptureAck again = device.capture.capture(device.request("alice", 1, "hi"));
    assertTrue(again.repeat());
    assertEquals(first.index(), again.index());
    assertEquals(first.capturedAt(), again.capturedAt());
    assertEquals(1, device.capture.logStatus().size());
    assertEquals(root, device.capture.logStatus().rootHex());
    assertEquals(1, device.store.checkpoints().size());
    assertEquals(1, device.capture.stats().duplicates());
  }

  @Test
  void sameKeyWithDifferentContentIsAConflict() throws Exception {
    device = TestDevice.create(dir, clock);
    device.capture.capture(device.request("alice", 1, "hi"));
    IdempotencyConflictException e =
        assertThrows(
            IdempotencyConflictException.class,
            () -> device.capture.capture(device.request("alice", 1, "something else")));
    assertEquals(0, e.original().index());
    assertTrue(e.getMessage().contains("already used for a different message"), e.getMessage());
    assertEquals(1, device.capture.logStatus().size());
    assertEquals(1, device.capture.stats().conflicts());
  }

  @Test
  void keyOfAnotherDeviceIsRefused() throws Exception {
    device = TestDevice.create(dir, clock);
    IdempotencyKey foreign =
        new IdempotencyKey("dev-2", "alice", 1_700_000_000_000L, "00112233445566778899");
    InvalidRecordException e =
        assertThrows(
            InvalidRecordException.class,
            () ->
                device.capture.submit(
                    new CaptureRequest(foreign, "room-1", "alice", "hi", null, 1, 0, 25)));
    assertEquals("key", e.field());
    assertTrue(e.getMessage().contains("dev-2"), e.getMessage());
  }

  @Test
  void burstIsGroupCommittedAndEveryAckIsDistinct() throws Exception {
    device = TestDevice.create(dir, clock);
    List<CompletableFuture<CaptureAck>> futures = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      futures.add(device.capture.submit(device.request("u" + (i % 7), i, "message " + i)));
    }
    boolean[] seen = new boolean[2_000];
    for (CompletableFuture<CaptureAck> f : futures) {
      CaptureAck ack = CaptureService.await(f);
      assertFalse(seen[(int) ack.index()], "index handed out twice: " + ack.index());
      seen[(int) ack.index()] = true;
    }
    assertEquals(2_000, device.capture.logStatus().size());
    int checkpoints = device.store.checkpoints().size();
    assertTrue(checkpoints < 2_000 / 2, "transactions: got " + checkpoints + ", want batches");
    VerifyReport report = device.verify();
    assertTrue(report.ok(), report.problem());
    assertEquals(checkpoints, report.checkpointsChecked());
  }

  @Test
  void repeatsInsideOneBatchAreCapturedOnce() throws Exception {
    device = TestDevice.create(dir, clock);
    List<CompletableFuture<CaptureAck>> futures = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      futures.add(device.capture.submit(device.request("alice", 7, "double click")));
    }
    futures.add(device.capture.submit(device.request("alice", 7, "other text")));
    long index = CaptureService.await(futures.get(0)).index();
    for (int i = 1; i < 50; i++) {
      CaptureAck a = CaptureService.await(futures.get(i));
      assertEquals(index, a.index());
      assertTrue(a.repeat());
    }
    assertThrows(IdempotencyConflictException.class, () -> CaptureService.await(futures.get(50)));
    assertEquals(1, device.capture.logStatus().size());
  }

  @Test
  void storeAtItsBoundRefusesNewCapturesButAnswersRepeats() throws Exception {
    device = TestDevice.create(dir, clock);
    CaptureAck first = device.capture.capture(device.request("alice", 1, "hi"));
    device.stop();
    long full = device.store.sizeOnDiskBytes();
    TestDevice bounded = new TestDeviceReopen(device).withBound(full);
    try {
      StoreFullException e =
          assertThrows(
              StoreFullException.class,
              () -> bounded.capture.capture(bounded.request("alice", 2, "more")));
      assertTrue(e.getMessage().contains("store is full"), e.getMessage());
      assertEquals(1, bounded.capture.logStatus().size());
      assertEquals(
          first.index(), bounded.capture.capture(bounded.request("alice", 1, "hi")).index());
    } finally {
      bounded.close();
      device = null;
    }
  }

  @Test
  void restartRestoresBloomAndHlcAndKeepsDeduplicating() throws Exception {
    device = TestDevice.create(dir, clock);
    for (int i = 0; i < 100; i++) {
      device.capture.capture(device.request("alice", i, "m" + i));
    }
    long hlcBefore = lastHlc();
    clock.advance(Duration.ofHours(-1));
    device.restart();
    long maybesBefore = device.capture.stats().maybes();
    CaptureAck repeat = device.capture.capture(device.request("alice", 42, "m42"));
    assertTrue(repeat.repeat());
    assertEquals(42, repeat.index());
    assertEquals(
        maybesBefore + 1, device.capture.stats().maybes(), "restored filter knows the key");
    device.capture.capture(device.request("bob", 1, "after restart"));
    assertTrue(lastHlc() > hlcBefore, "capture clock must not go back after a restart");
    assertTrue(device.verify().ok());
  }

  @Test
  void keysForgottenByTheBloomFilterAreStillCaughtExactly() throws Exception {
    device =
        TestDevice.create(
            dir, clock, new BloomConfig(2, 0.01, Duration.ofDays(1)), TestDevice.UNBOUNDED);
    for (int i = 0; i < 20; i++) {
      device.capture.capture(device.request("alice", i, "m" + i));
    }
    List<CompletableFuture<CaptureAck>> futures = new ArrayList<>();
    futures.add(device.capture.submit(device.request("bob", 1, "new in the same batch")));
    futures.add(device.capture.submit(device.request("alice", 0, "m0")));
    CaptureAck fresh = CaptureService.await(futures.get(0));
    CaptureAck old = CaptureService.await(futures.get(1));
    assertTrue(old.repeat());
    assertEquals(0, old.index());
    assertEquals(20, fresh.index());
    assertEquals(21, device.capture.logStatus().size());
    assertTrue(device.capture.stats().bloomMisses() >= 1);
    VerifyReport report = device.verify();
    assertTrue(report.ok(), report.problem());
  }

  @Test
  void failedTransactionLeavesTheCommittedStateUntouched() throws Exception {
    device = TestDevice.create(dir, clock);
    device.capture.capture(device.request("alice", 0, "first"));
    String root = device.capture.logStatus().rootHex();
    device.faults.failAppendAt(1);
    StoreException e =
        assertThrows(
            StoreException.class,
            () -> device.capture.capture(device.request("alice", 1, "second")));
    assertTrue(e.getMessage().contains("append records [1, 2)"), e.getMessage());
    assertEquals(1, device.capture.logStatus().size());
    assertEquals(root, device.capture.logStatus().rootHex());
    assertEquals(1, device.store.recordCount());
    CaptureAck retried = device.capture.capture(device.request("alice", 1, "second"));
    assertEquals(1, retried.index());
    assertFalse(
        retried.repeat(), "the failed capture must not have entered the Bloom filter as stored");
    VerifyReport report = device.verify();
    assertTrue(report.ok(), report.problem());
  }

  /** Runs {@code capture} on a thread of its own; the future completes with its ack. */
  private CompletableFuture<CaptureAck> captureOnAThread(CaptureRequest request, String name) {
    CompletableFuture<CaptureAck> out = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                out.complete(device.capture.capture(request));
              } catch (Exception | Error e) {
                out.completeExceptionally(e);
              }
            },
            name);
    t.start();
    return out;
  }

  @Test
  void aLoneCaptureCommitsOnItsOwnThreadAndIsAnsweredOnlyAfterTheCommit() throws Exception {
    device = TestDevice.create(dir, clock);
    device.faults.hold();
    CompletableFuture<CaptureAck> lone =
        captureOnAThread(device.request("alice", 1, "alone"), "lone-capturer");
    device.faults.awaitHeldAppend();
    Thread appender = device.faults.appenders().get(0);
    assertEquals("lone-capturer", appender.getName(), "the submitting thread commits it");
    assertFalse(lone.isDone(), "acknowledged while its transaction was still committing");
    assertEquals(0, device.store.recordCount());
    device.faults.release();
    CaptureAck ack = lone.get(30, TimeUnit.SECONDS);
    assertEquals(0, ack.index());
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + EdgeStore.fileIn(dir));
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT idempotency_key FROM records WHERE idx = 0")) {
      assertTrue(rs.next(), "the acknowledged record is in the file, seen by another connection");
      assertEquals(ack.idempotencyKey(), rs.getString(1));
    }
    assertEquals(1, device.capture.logStatus().size());
    assertEquals(1, device.capture.stats().captures());
    CaptureAck again = device.capture.capture(device.request("alice", 1, "alone"));
    assertTrue(again.repeat(), "the lone commit fed the Bloom filter and the exact lookup");
    assertEquals(0, again.index());
  }

  @Test
  void capturesArrivingDuringALoneCommitAreGroupCommittedByTheWriterAndDeduped() throws Exception {
    device = TestDevice.create(dir, clock);
    device.faults.hold();
    CompletableFuture<CaptureAck> lone =
        captureOnAThread(device.request("alice", 0, "first"), "lone-capturer");
    device.faults.awaitHeldAppend();
    int threads = 40;
    List<CompletableFuture<CaptureAck>> behind = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      // every key twice with the same content, and "alice" 0 again: all repeats
      int n = i % (threads / 2);
      CaptureRequest r =
          i == threads - 1
              ? device.request("alice", 0, "first")
              : device.request("u" + n, n, "message " + n);
      behind.add(captureOnAThread(r, "capturer-" + i));
    }
    for (int i = 0; i < 3_000 && device.capture.queued() < threads; i++) {
      Thread.sleep(1);
    }
    assertEquals(threads, device.capture.queued(), "all queued behind the lone commit");
    device.faults.release();

    assertEquals(0, lone.get(30, TimeUnit.SECONDS).index());
    Map<String, Long> indexOfKey = new HashMap<>();
    for (CompletableFuture<CaptureAck> f : behind) {
      CaptureAck ack = f.get(30, TimeUnit.SECONDS);
      Long before = indexOfKey.putIfAbsent(ack.idempotencyKey(), ack.index());
      if (before != null) {
        assertEquals(before, ack.index(), "one index per key: " + ack.idempotencyKey());
      }
    }
    assertEquals(threads / 2 + 1, indexOfKey.size(), "the 20 keys behind plus alice's");
    assertEquals(0, indexOfKey.get(device.key("alice", 0).toString()));
    assertEquals(1 + threads / 2, device.capture.logStatus().size());
    assertEquals(1 + threads / 2, device.store.recordCount());
    List<Thread> appenders = device.faults.appenders();
    assertEquals(2, appenders.size(), "transactions: the lone one and one group commit");
    for (Thread t : appenders.subList(1, appenders.size())) {
      assertEquals("edge-capture-writer", t.getName(), "queued captures commit on the writer");
    }
    assertEquals(threads / 2, device.capture.stats().duplicates());
    VerifyReport report = device.verify();
    assertTrue(report.ok(), report.problem());
  }

  @Test
  void aCaptureNeverOvertakesOnesQueuedBeforeIt() throws Exception {
    device = TestDevice.create(dir, clock);
    CompletableFuture<CaptureAck> held = holdACommit(900_000);
    CompletableFuture<CaptureAck> queued =
        device.capture.submit(device.request("alice", 1, "queued first"));
    device.faults.release();
    CaptureAck later = device.capture.capture(device.request("alice", 2, "captured after"));
    assertEquals(0, CaptureService.await(held).index());
    assertEquals(1, CaptureService.await(queued).index());
    assertEquals(2, later.index());
  }

  /**
   * Holds a one-record transaction in the store's append, so whatever the test submits next is
   * queued behind a transaction still committing; returns its future.
   */
  private CompletableFuture<CaptureAck> holdACommit(int n) throws Exception {
    device.faults.hold();
    CompletableFuture<CaptureAck> held = device.capture.submit(device.request("held", n, "held"));
    device.faults.awaitHeldAppend();
    return held;
  }

  /** A full batch of fresh keys from n = {@code from}, all from user "bulk". */
  private List<CaptureRequest> fullBatch(int from, String text) {
    List<CaptureRequest> out = new ArrayList<>();
    for (int i = 0; i < CaptureService.MAX_BATCH; i++) {
      out.add(device.request("bulk", from + i, text + " " + (from + i)));
    }
    return out;
  }

  @Test
  void repeatsOfABatchStillCommittingAreAnsweredFromIt() throws Exception {
    device = TestDevice.create(dir, clock);
    List<CaptureRequest> again = new ArrayList<>(fullBatch(0, "same"));
    again.set(7, device.request("bulk", 7, "changed"));
    CompletableFuture<CaptureAck> held = holdACommit(900_000);
    List<CompletableFuture<CaptureAck>> first = device.capture.submitAll(fullBatch(0, "same"));
    List<CompletableFuture<CaptureAck>> second = device.capture.submitAll(again);
    device.faults.release();
    assertEquals(0, CaptureService.await(held).index());
    for (int i = 0; i < CaptureService.MAX_BATCH; i++) {
      CaptureAck original = CaptureService.await(first.get(i));
      assertEquals(i + 1, original.index());
      if (i == 7) {
        CompletableFuture<CaptureAck> conflicting = second.get(i);
        IdempotencyConflictException e =
            assertThrows(
                IdempotencyConflictException.class, () -> CaptureService.await(conflicting));
        assertEquals(8, e.original().index());
      } else {
        CaptureAck repeat = CaptureService.await(second.get(i));
        assertTrue(repeat.repeat(), "ack " + i + " of the second batch: got fresh, want repeat");
        assertEquals(i + 1, repeat.index());
      }
    }
    assertEquals(1 + CaptureService.MAX_BATCH, device.capture.logStatus().size());
    VerifyReport report = device.verify();
    assertTrue(report.ok(), report.problem());
  }

  @Test
  void batchPlannedOnAFailedTransactionIsPlannedAgainOnTheCommittedLog() throws Exception {
    device = TestDevice.create(dir, clock);
    device.capture.capture(device.request("alice", 100_000, "first"));
    CompletableFuture<CaptureAck> held = holdACommit(900_000);
    List<CompletableFuture<CaptureAck>> failing = device.capture.submitAll(fullBatch(0, "doomed"));
    List<CompletableFuture<CaptureAck>> after =
        device.capture.submitAll(
            List.of(
                device.request("bulk", 3, "doomed 3"), device.request("bob", 200_000, "later")));
    device.faults.failAppendAt(2);
    device.faults.release();
    assertEquals(1, CaptureService.await(held).index());
    String root = device.capture.logStatus().rootHex();
    for (CompletableFuture<CaptureAck> f : failing) {
      StoreException e = assertThrows(StoreException.class, () -> CaptureService.await(f));
      assertTrue(e.getMessage().contains("append records [2, 1026)"), e.getMessage());
    }
    CaptureAck repeatOfFailed = CaptureService.await(after.get(0));
    assertFalse(
        repeatOfFailed.repeat(), "a key of the failed transaction must be captured, not repeated");
    assertEquals(2, repeatOfFailed.index());
    assertEquals(3, CaptureService.await(after.get(1)).index());
    assertEquals(4, device.capture.logStatus().size());
    assertEquals(4, device.store.recordCount());
    assertFalse(root.equals(device.capture.logStatus().rootHex()));
    VerifyReport report = device.verify();
    assertTrue(report.ok(), report.problem());
    assertEquals(3, report.checkpointsChecked());
  }

  @Test
  void bloomIsRebuiltFromTheRecordsWithoutASnapshot() throws Exception {
    device = TestDevice.create(dir, clock);
    for (int i = 0; i < 30; i++) {
      device.capture.capture(device.request("alice", i, "m" + i));
    }
    device.stop();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + EdgeStore.fileIn(dir));
        Statement st = c.createStatement()) {
      st.executeUpdate("DELETE FROM bloom_snapshot");
    }
    device.start();
    long maybes = device.capture.stats().maybes();
    for (int i = 0; i < 30; i++) {
      assertTrue(device.capture.capture(device.request("alice", i, "m" + i)).repeat());
    }
    assertEquals(maybes + 30, device.capture.stats().maybes(), "every old key is a Bloom maybe");
    assertEquals(0, device.capture.stats().bloomMisses());
  }

  private long lastHlc() throws Exception {
    long size = device.capture.logStatus().size();
    return CanonicalRecord.decode(device.store.records(size - 1, 1).get(0).canonical()).hlc();
  }

  /** Reopens a stopped device's directory with a store bound. */
  private static final class TestDeviceReopen {
    private final TestDevice stopped;

    TestDeviceReopen(TestDevice stopped) {
      this.stopped = stopped;
    }

    TestDevice withBound(long bound) throws Exception {
      return TestDevice.reopen(stopped, bound);
    }
  }
}
