package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.server.ingest.HeldCommits;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping an instance with a batch in flight (docs/sync-server.md, "Start"): the batch in its
 * commit ({@link HeldCommits}) is answered before the listener stops, and a batch that arrives
 * while the instance drains is refused at once with 503 and {@code Retry-After}, to be sent to
 * another instance.
 */
final class GracefulStopIT {
  @TempDir Path dir;

  @Test
  void aBatchInFlightIsAnsweredAndOneArrivingWhileDrainingIsRefused() throws Exception {
    HeldCommits.entered = new CountDownLatch(1);
    HeldCommits.release = new CountDownLatch(1);
    ExecutorService pool = Executors.newCachedThreadPool();
    try (RedisFixture redis = RedisFixture.embedded()) {
      SyncServer server = SyncServer.start(ServerConfig.builder(dir).redisUri(redis.uri()).build());
      Thread closer = new Thread(server::close, "closer");
      try {
        Api api = new Api(server.baseUri(), server.adminToken());
        HeldCommits.install(Database.h2Url(dir));
        TestDevice held = api.enrollNew(server.enrollToken());
        TestDevice late = api.enrollNew(server.enrollToken());
        HeldCommits.held = held.id;
        Future<Api.Reply> inFlight =
            pool.submit(() -> api.batch(held, held.batch(held.record("stop", "u", "in flight"))));
        assertTrue(HeldCommits.entered.await(30, TimeUnit.SECONDS), "batch not committing");

        closer.start();
        // the closer waits in the drain only once new batches are refused
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (closer.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertEquals(Thread.State.TIMED_WAITING, closer.getState(), "closer not draining");

        Api.Reply refused = api.batch(late, late.batch(late.record("stop", "u", "too late")));
        assertEquals(503, refused.status(), refused.toString());
        assertNotNull(refused.retryAfter(), refused.toString());
        assertTrue(refused.body().contains("shutting down"), refused.toString());

        HeldCommits.release.countDown();
        Api.Reply answered = inFlight.get(30, TimeUnit.SECONDS);
        assertEquals(200, answered.status(), answered.toString());
        BatchResponse b = answered.as(BatchResponse.class);
        assertEquals(1, b.verifiedSize(), answered.toString());
        assertEquals(Outcome.CONFIRMED, b.outcomes().get(0).outcome(), answered.toString());
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertEquals(Thread.State.TERMINATED, closer.getState(), "instance not stopped");
      } finally {
        HeldCommits.held = null;
        HeldCommits.release.countDown();
        server.close();
        pool.shutdownNow();
      }
    }
  }
}
