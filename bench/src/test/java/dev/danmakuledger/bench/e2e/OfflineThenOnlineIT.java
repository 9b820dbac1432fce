package dev.danmakuledger.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.edge.importer.BilibiliImporter;
import dev.danmakuledger.edge.importer.ImportProgress;
import dev.danmakuledger.edge.importer.ImportSummary;
import dev.danmakuledger.edge.sync.Backoff;
import dev.danmakuledger.edge.sync.ReceiptVerifier;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.SyncStoppedException;
import dev.danmakuledger.edge.sync.Syncer;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.testkit.BilibiliSample;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * End to end, "Offline then online": the real Bilibili file is captured while no server runs, then
 * the server starts and one sync delivers all 1,239 records, confirmed, numbered 1..1,239 in the
 * room, with the server's root of the device log equal to the agent's.
 */
class OfflineThenOnlineIT {
  static final int ENTRIES = 1239;
  final Clock clock = Clock.systemUTC();
  @TempDir Path tmp;

  static Stream<Backend> backends() {
    return Backend.all().stream();
  }

  static Path sampleFile(Path dir) throws Exception {
    return BilibiliSample.copyTo(dir);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("backends")
  void bilibiliFileCapturedOfflineIsConfirmedInOrderOnceOnline(Backend backend) throws Exception {
    String room = Names.unique("room");
    String device = Names.unique("kiosk");
    try (EdgeNode node = EdgeNode.init(tmp.resolve("agent"), device, clock)) {
      ImportSummary imported =
          new BilibiliImporter(node.capture())
              .importFile(sampleFile(tmp), room, ImportProgress.none());
      assertEquals(ENTRIES, imported.captured(), imported.toString());

      List<Duration> waits = new ArrayList<>();
      Syncer offline =
          Syncer.builder(
                  node.store(),
                  node.identity(),
                  new SyncClient(Cluster.HTTP, "http://127.0.0.1:" + deadPort(), clock),
                  ReceiptVerifier.legacyOnly(
                      NoteVerifier.parse(
                          NoteSigner.generate("nobody", new SecureRandom()).verifierKey())),
                  clock)
              .settings(SyncSettings.defaults().withMaxAttempts(3))
              .backoff(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), () -> 0.5))
              .sleeper(waits::add)
              .metadata(() -> new BatchMetadata(0, 0, 0, 0))
              .build();
      SyncStoppedException down = assertThrows(SyncStoppedException.class, offline::sync);
      assertEquals(SyncStoppedException.Reason.UNREACHABLE, down.reason());
      assertEquals(List.of(Duration.ofMillis(50), Duration.ofMillis(100)), waits);
      assertEquals(Map.of("UNSYNCED", (long) ENTRIES), node.store().outcomeCounts());

      try (Cluster cluster =
          Cluster.start(backend, tmp.resolve("server"), c -> c.reviewRule(null))) {
        node.enroll(Cluster.HTTP, cluster.url(), cluster.enrollToken(), clock);
        SyncReport report =
            node.syncer(
                    Cluster.HTTP,
                    cluster.url(),
                    cluster.serverKey(),
                    SyncSettings.defaults(),
                    clock)
                .sync();

        assertTrue(report.complete(), report.toString());
        assertEquals(Map.of("CONFIRMED", (long) ENTRIES), report.outcomes());
        LedgerReader reader = cluster.reader();
        List<RoomMessage> slots = LedgerAssertions.roomIsComplete(reader, room);
        assertEquals(ENTRIES, slots.size());
        assertEquals(ENTRIES, LedgerAssertions.count(slots, RoomMessage.Status.CONFIRMED));
        LedgerAssertions.agentMatchesServer(node, reader);
      }
    }
  }

  static int deadPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
