package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.store.QueueState;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import okhttp3.OkHttpClient;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The background sync of {@code edge-agent run}: it sends what is captured while it runs and stops
 * for good only on answers an operator must resolve. Its waits go through a sleeper that returns at
 * once, so the test waits only for the daemon thread to do its work.
 */
class SyncDaemonTest {
  @TempDir Path dir;
  final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  TestDevice dev;
  MockWebServer web;
  FakeWitness witness;
  final Sleeper yielding = d -> Thread.sleep(1);

  @BeforeEach
  void setUp() throws Exception {
    dev = TestDevice.create(dir, clock);
    witness =
        new FakeWitness(
            "dev-1",
            NoteVerifier.ofEd25519(dev.identity.origin(), dev.identity.signer().publicKey()));
    web = new MockWebServer();
    web.setDispatcher(witness);
    web.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    web.shutdown();
    dev.close();
  }

  SyncDaemon start(SyncSettings s) {
    Backoff backoff = new Backoff(Duration.ofMillis(1), Duration.ofMillis(2), () -> 0.0);
    Syncer syncer =
        Syncer.builder(
                dev.store,
                dev.identity,
                new SyncClient(new OkHttpClient(), web.url("/").toString(), clock),
                ReceiptVerifier.legacyOnly(witness.serverVerifier()),
                clock)
            .settings(s)
            .backoff(backoff)
            .sleeper(yielding)
            .metadata(() -> new BatchMetadata(0, 0, 0, 0))
            .build();
    return SyncDaemon.start(syncer, () -> dev.capture.logStatus().size(), s, backoff, yielding);
  }

  static void await(BooleanSupplier done, String what) throws InterruptedException {
    CountDownLatch never = new CountDownLatch(1);
    for (int i = 0; i < 2_000 && !done.getAsBoolean(); i++) {
      never.await(5, TimeUnit.MILLISECONDS);
    }
    assertTrue(done.getAsBoolean(), what);
  }

  @Test
  void sendsRecordsCapturedWhileRunning() throws Exception {
    try (SyncDaemon d = start(SyncSettings.defaults().withBatchSize(4).withLinger(Duration.ZERO))) {
      for (int i = 0; i < 10; i++) {
        dev.capture.capture(dev.request("u", i, "live " + i));
      }
      await(() -> witness.verifiedSize() == 10, "daemon synced all 10: " + d.lastReport());
      await(() -> d.lastReport() != null && d.lastReport().complete(), "last run complete");
      assertNull(d.stoppedBy());
    }
    assertEquals(0, dev.store.outcomeCounts().getOrDefault("UNSYNCED", 0L));
  }

  @Test
  void outageIsRetriedUntilTheServerIsBack() throws Exception {
    dev.capture.capture(dev.request("u", 1, "waiting"));
    for (int i = 0; i < 20; i++) {
      witness.fault(r -> FakeWitness.problem(ErrorCode.SQL_UNAVAILABLE, "down"));
    }
    SyncSettings s = SyncSettings.defaults().withLinger(Duration.ZERO).withMaxAttempts(2);
    try (SyncDaemon d = start(s)) {
      await(() -> witness.verifiedSize() == 1, "synced after the outage");
      assertNull(d.stoppedBy());
    }
  }

  /**
   * A failed run is retried on the daemon's own timer: with a linger of an hour, only the backoff
   * can start the second run, and nothing new is captured. Time is virtual: the sleeper moves the
   * clock the daemon reads, so the backoff and the hour pass without waiting.
   */
  @Test
  void failedSyncIsRetriedOnItsOwnTimerWithNoNewCapture() throws Exception {
    dev.capture.capture(dev.request("u", 1, "waiting for the server"));
    long capturedAt = clock.millis();
    witness.fault(witness::pass);
    witness.fault(r -> FakeWitness.problem(ErrorCode.SQL_UNAVAILABLE, "down"));
    List<Duration> waits = new CopyOnWriteArrayList<>();
    List<Long> retryAtDuringWait = new CopyOnWriteArrayList<>();
    Sleeper virtual =
        d -> {
          if (!d.equals(SyncDaemon.POLL)) {
            waits.add(d);
            try {
              retryAtDuringWait.add(QueueState.nextRetry(dev.store).orElse(-1L));
            } catch (StoreException e) {
              throw new IllegalStateException(e);
            }
          }
          clock.advance(d);
          Thread.sleep(1);
        };
    Backoff backoff = new Backoff(Duration.ofSeconds(30), Duration.ofMinutes(5), () -> 0.5);
    SyncSettings s = SyncSettings.defaults().withLinger(Duration.ofHours(1)).withMaxAttempts(1);
    Syncer syncer =
        Syncer.builder(
                dev.store,
                dev.identity,
                new SyncClient(new OkHttpClient(), web.url("/").toString(), clock),
                ReceiptVerifier.legacyOnly(witness.serverVerifier()),
                clock)
            .settings(s)
            .backoff(backoff)
            .sleeper(virtual)
            .metadata(() -> new BatchMetadata(0, 0, 0, 0))
            .build();
    long failedAt;
    try (SyncDaemon d =
        SyncDaemon.start(
            syncer,
            () -> dev.capture.logStatus().size(),
            s,
            backoff,
            virtual,
            () -> clock.millis() * 1_000_000L)) {
      await(
          () -> d.lastReport() != null && d.lastReport().complete(),
          "retried and synced: " + witness.batches.size());
      assertNull(d.stoppedBy());
    }
    assertEquals(1, dev.capture.logStatus().size(), "nothing new was captured");
    assertEquals(List.of(Duration.ofSeconds(15)), waits, "one backoff wait: half of 30 s");
    assertEquals(
        1, witness.batches.size(), "the refused batch never got past the fault: the retry");
    BatchMetadata retried = witness.batches.get(0).metadata();
    assertEquals(capturedAt, retried.oldestUnsyncedMillis(), "the queue had not moved");
    failedAt = retried.lastAttempt().atMillis();
    assertEquals("sql-unavailable", retried.lastAttempt().outcome());
    assertEquals(List.of(failedAt + 15_000), retryAtDuringWait, "retry time stored while waiting");

    QueueState after = QueueState.read(dev.store);
    assertNull(after.oldestUnsyncedAt(), "drained");
    assertEquals(SyncAttempt.OK, after.lastAttempt().outcome());
    assertNull(after.nextRetryAt(), "no retry scheduled once synced");
  }

  @Test
  void lastAttemptSurvivesARestartAndAStaleRetryTimeIsDropped() throws Exception {
    QueueState.saveLastAttempt(dev.store, new SyncAttempt(1234, "transport-timeout"));
    QueueState.saveNextRetry(dev.store, 5678L);
    SyncState state = new SyncState(dev.store, clock);
    assertEquals(new SyncAttempt(1234, "transport-timeout"), state.last());
    assertNull(QueueState.read(dev.store).nextRetryAt(), "no process waits on that retry now");
  }

  @Test
  void quarantineStopsSyncingForGood() throws Exception {
    dev.capture.capture(dev.request("u", 1, "held"));
    witness.status = LogState.Status.QUARANTINED;
    try (SyncDaemon d = start(SyncSettings.defaults().withLinger(Duration.ZERO))) {
      await(() -> d.stoppedBy() != null, "daemon stopped");
      assertNotNull(d.stoppedBy());
      assertEquals(SyncStoppedException.Reason.QUARANTINED, d.stoppedBy().reason());
    }
    assertEquals(1, dev.store.recordCount(), "capture data is kept");
  }
}
