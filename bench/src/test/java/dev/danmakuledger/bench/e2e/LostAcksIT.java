package dev.danmakuledger.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.demo.harness.LossyProxy;
import dev.danmakuledger.edge.importer.BilibiliImporter;
import dev.danmakuledger.edge.importer.ImportProgress;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.Overview;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * End to end, "Lost acks": a proxy between agent and server forwards every batch but drops the
 * reply of every third one. The agent reads the verified size again and fetches the stored outcomes
 * (docs/sync.md, "Failures"). No duplicates, no gaps, nothing counted twice.
 */
class LostAcksIT {
  static final int BATCH = 50;
  final Clock clock = Clock.systemUTC();
  @TempDir Path tmp;

  static Stream<Backend> backends() {
    return Backend.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("backends")
  void droppedRepliesNeitherDuplicateNorLoseARecord(Backend backend) throws Exception {
    String room = Names.unique("room");
    try (Cluster cluster = Cluster.start(backend, tmp.resolve("server"), c -> c.reviewRule(null));
        EdgeNode node = EdgeNode.init(tmp.resolve("agent"), Names.unique("kiosk"), clock);
        LossyProxy lossy = LossyProxy.start(Cluster.HTTP, cluster.url(), 3)) {
      new BilibiliImporter(node.capture())
          .importFile(OfflineThenOnlineIT.sampleFile(tmp), room, ImportProgress.none());
      long captured = node.store().logState().size();
      node.enroll(Cluster.HTTP, cluster.url(), cluster.enrollToken(), clock);

      SyncReport report =
          node.syncer(
                  Cluster.HTTP,
                  lossy.url(),
                  cluster.serverKey(),
                  SyncSettings.defaults().withBatchSize(BATCH).withBacklogBatchSize(BATCH),
                  clock)
              .sync();

      assertTrue(report.complete(), report.toString());
      long expectedBatches = (captured + BATCH - 1) / BATCH;
      assertTrue(lossy.dropped() >= expectedBatches / 3, "dropped " + lossy.dropped());
      assertEquals(lossy.dropped(), report.retries(), "one retry per lost reply");
      LedgerReader reader = cluster.reader();
      List<RoomMessage> slots = LedgerAssertions.roomIsComplete(reader, room);
      assertEquals(captured, slots.size(), "no gap, no duplicate slot");
      assertEquals(captured, LedgerAssertions.count(slots, RoomMessage.Status.CONFIRMED));
      LedgerAssertions.agentMatchesServer(node, reader);
      Overview o = reader.overview();
      assertEquals(captured, o.outcomes().get("CONFIRMED"), "replays are not counted again");
      assertEquals(0, o.duplicates().redis() + o.duplicates().sql());
      assertEquals(expectedBatches, o.batches(), "replayed batches are not new batches");
    }
  }
}
