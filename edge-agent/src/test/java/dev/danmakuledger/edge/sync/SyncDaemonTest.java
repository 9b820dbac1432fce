package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
        new Syncer(
            dev.store,
            dev.identity,
            new SyncClient(new OkHttpClient(), web.url("/").toString(), clock),
            witness.serverVerifier(),
            s,
            backoff,
            yielding,
            clock,
            () -> new BatchMetadata(0, 0, 0, 0));
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

  @Test
  void quarantineStopsSyncingForGood() throws Exception {
    dev.capture.capture(dev.request("u", 1, "held"));
    witness.status = "QUARANTINED";
    try (SyncDaemon d = start(SyncSettings.defaults().withLinger(Duration.ZERO))) {
      await(() -> d.stoppedBy() != null, "daemon stopped");
      assertNotNull(d.stoppedBy());
      assertEquals(SyncStoppedException.Reason.QUARANTINED, d.stoppedBy().reason());
    }
    assertEquals(1, dev.store.recordCount(), "capture data is kept");
  }
}
