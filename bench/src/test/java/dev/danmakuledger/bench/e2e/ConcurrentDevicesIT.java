package dev.danmakuledger.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.importer.BilibiliEntry;
import dev.danmakuledger.edge.sync.Backoff;
import dev.danmakuledger.edge.sync.Sleeper;
import dev.danmakuledger.edge.sync.SyncDaemon;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.testkit.BilibiliSample;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * End to end, "Two devices, several rooms, concurrent syncs": the Bilibili file is split over two
 * devices and three rooms; one device syncs in explicit runs from another thread, the other runs
 * the background sync daemon while it captures. Every room's numbering ends up complete and
 * strictly increasing, and every outcome an agent stored equals the server's row.
 */
class ConcurrentDevicesIT {
  static final int ROOMS = 3;
  final Clock clock = Clock.systemUTC();
  @TempDir Path tmp;

  static Stream<Backend> backends() {
    return Backend.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("backends")
  void roomNumberingIsCompleteAndEveryOutcomeMatchesTheServer(Backend backend) throws Exception {
    List<String> rooms = new ArrayList<>();
    for (int i = 0; i < ROOMS; i++) {
      rooms.add(Names.unique("room"));
    }
    List<BilibiliEntry> entries = BilibiliSample.entries();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Cluster cluster = Cluster.start(backend, tmp.resolve("server"), c -> c.reviewRule(null));
        EdgeNode a = EdgeNode.init(tmp.resolve("a"), Names.unique("kiosk"), clock);
        EdgeNode b = EdgeNode.init(tmp.resolve("b"), Names.unique("kiosk"), clock)) {
      a.enroll(Cluster.HTTP, cluster.url(), cluster.enrollToken(), clock);
      b.enroll(Cluster.HTTP, cluster.url(), cluster.enrollToken(), clock);
      Map<String, Long> perRoom = new HashMap<>();
      List<List<BilibiliEntry>> chunks = new ArrayList<>();
      for (int i = 0; i < entries.size(); i += 200) {
        chunks.add(entries.subList(i, Math.min(entries.size(), i + 200)));
      }
      SyncSettings settings = SyncSettings.defaults().withBatchSize(40).withLinger(Duration.ZERO);
      Backoff backoff = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(1), () -> 0.5);
      try (SyncDaemon daemon =
          SyncDaemon.start(
              b.syncer(Cluster.HTTP, cluster.url(), cluster.serverKey(), settings, clock),
              () -> b.capture().logStatus().size(),
              settings,
              backoff,
              Sleeper.real())) {
        int n = 0;
        for (List<BilibiliEntry> chunk : chunks) {
          List<CompletableFuture<CaptureAck>> acks = new ArrayList<>();
          for (BilibiliEntry e : chunk) {
            EdgeNode node = n % 2 == 0 ? a : b;
            String room = rooms.get((n / 7) % ROOMS);
            perRoom.merge(room, 1L, Long::sum);
            acks.add(node.capture().submit(e.request(node.deviceId(), room)));
            n++;
          }
          for (CompletableFuture<CaptureAck> f : acks) {
            CaptureService.await(f);
          }
          Future<SyncReport> run =
              pool.submit(
                  () ->
                      a.syncer(Cluster.HTTP, cluster.url(), cluster.serverKey(), settings, clock)
                          .sync());
          assertTrue(run.get(1, TimeUnit.MINUTES).complete());
        }
        long want = b.store().logState().size();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (daemon.lastReport() == null
            || daemon.lastReport().verifiedSize() < want
            || !daemon.lastReport().complete()) {
          assertNull(daemon.stoppedBy(), "daemon stopped");
          assertTrue(
              System.nanoTime() < deadline, "daemon did not catch up: " + daemon.lastReport());
          Thread.onSpinWait();
          TimeUnit.MILLISECONDS.sleep(20);
        }
      }

      LedgerReader reader = cluster.reader();
      for (String room : rooms) {
        List<RoomMessage> slots = LedgerAssertions.roomIsComplete(reader, room);
        assertEquals(perRoom.get(room), (long) slots.size(), room);
        assertEquals(
            perRoom.get(room), LedgerAssertions.count(slots, RoomMessage.Status.CONFIRMED), room);
        long devicesInRoom = slots.stream().map(RoomMessage::deviceId).distinct().count();
        assertEquals(2, devicesInRoom, room + " is fed by both devices");
      }
      LedgerAssertions.agentMatchesServer(a, reader);
      LedgerAssertions.agentMatchesServer(b, reader);
    } finally {
      pool.shutdownNow();
    }
  }
}
