package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.sync.Backoff;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncStoppedException;
import dev.danmakuledger.edge.sync.Syncer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Random;

/**
 * Syncs a stopped agent's store to the end with the agent's own sync client, through the proxy (its
 * faults are off by then, so it only balances and counts the servers' answers), until the server
 * holds the whole log or refuses it for good.
 */
final class FinalSync {
  private final String serverUrl;
  private final Random random;

  /**
   * @param random the run's random source (the backoff jitter draws from it)
   */
  FinalSync(String serverUrl, Random random) {
    this.serverUrl = serverUrl;
    this.random = random;
  }

  /** Returns null when the log is synced to the end, else why not. */
  String sync(Path dir, EdgeStore store) throws Exception {
    DeviceIdentity identity = DeviceIdentity.load(dir, AgentConfig.load(dir).deviceId());
    ServerLink link =
        ServerLink.load(dir).orElseThrow(() -> new IOException(dir + " was never enrolled"));
    Syncer syncer =
        Syncer.builder(
                store,
                identity,
                new SyncClient(ChaosAgent.http(), serverUrl, Clock.systemUTC()),
                link.receiptVerifier(),
                Clock.systemUTC())
            .settings(ChaosAgent.SYNC)
            .backoff(
                new Backoff(
                    ChaosAgent.SYNC.backoffBase(),
                    ChaosAgent.SYNC.backoffCap(),
                    random::nextDouble))
            .build();
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    String last = "no sync attempted";
    while (System.nanoTime() < deadline) {
      try {
        SyncReport r = syncer.sync();
        if (r.complete()) {
          return null;
        }
        last = "incomplete: " + r;
      } catch (SyncStoppedException e) {
        if (!e.retryLater()) {
          return e.reason() + ": " + e.getMessage();
        }
        last = e.getMessage();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(500);
    }
    return last;
  }
}
