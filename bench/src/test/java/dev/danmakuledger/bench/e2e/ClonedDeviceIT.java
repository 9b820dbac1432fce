package dev.danmakuledger.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.importer.BilibiliEntry;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.SyncStoppedException;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.testkit.BilibiliSample;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * End to end, "Cloned device": a copy of a synced data directory captures other messages than the
 * original. The original syncs first; the clone presents a checkpoint for the same size with
 * another root, is refused as a fork, the device is quarantined and shows so in /admin/devices, and
 * nothing of the clone is stored.
 */
class ClonedDeviceIT {
  final Clock clock = Clock.systemUTC();
  @TempDir Path tmp;

  static Stream<Backend> backends() {
    return Backend.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("backends")
  void cloneIsRefusedAsAForkAndQuarantined(Backend backend) throws Exception {
    String room = Names.unique("room");
    String device = Names.unique("kiosk");
    Path original = tmp.resolve("original");
    Path clone = tmp.resolve("clone");
    List<BilibiliEntry> entries = BilibiliSample.entries();
    try (Cluster cluster = Cluster.start(backend, tmp.resolve("server"), c -> c.reviewRule(null))) {
      LedgerReader reader = cluster.reader();
      try (EdgeNode node = EdgeNode.init(original, device, clock)) {
        List<CompletableFuture<CaptureAck>> acks = new ArrayList<>();
        for (BilibiliEntry e : entries.subList(0, 40)) {
          acks.add(node.capture().submit(e.request(device, room)));
        }
        for (CompletableFuture<CaptureAck> a : acks) {
          CaptureService.await(a);
        }
        node.enroll(Cluster.HTTP, cluster.url(), cluster.enrollToken(), clock);
        assertTrue(sync(node, cluster).complete());
      }
      RedisFlushIT.copyTree(original, clone);

      try (EdgeNode node = EdgeNode.open(original, clock)) {
        for (BilibiliEntry e : entries.subList(40, 45)) {
          node.capture().capture(e.request(device, room));
        }
        assertTrue(sync(node, cluster).complete());
        LedgerAssertions.agentMatchesServer(node, reader);
      }
      try (EdgeNode copy = EdgeNode.open(clone, clock)) {
        for (BilibiliEntry e : entries.subList(45, 50)) {
          copy.capture().capture(e.request(device, room));
        }
        SyncStoppedException e =
            assertThrows(SyncStoppedException.class, () -> sync(copy, cluster));
        assertEquals(SyncStoppedException.Reason.FORK, e.reason(), e.getMessage());
        assertEquals(45, copy.store().recordCount(), "the clone keeps all its data");
        for (StoredRecord r : copy.store().records(40, 5)) {
          assertTrue(reader.message(r.idempotencyKey()).isEmpty(), "clone record stored");
        }
      }

      DeviceSummary s =
          reader.devices().devices().stream()
              .filter(d -> d.deviceId().equals(device))
              .findFirst()
              .orElseThrow();
      assertTrue(
          Set.of(DeviceSummary.Status.FORKED, DeviceSummary.Status.QUARANTINED)
              .contains(s.status()),
          s.toString());
      assertEquals(LogState.Status.QUARANTINED, reader.log(device).status());
      assertEquals(1, reader.overview().forks());
      assertEquals(45, LedgerAssertions.roomIsComplete(reader, room).size());

      try (EdgeNode node = EdgeNode.open(original, clock)) {
        SyncStoppedException q =
            assertThrows(SyncStoppedException.class, () -> sync(node, cluster));
        assertEquals(SyncStoppedException.Reason.QUARANTINED, q.reason());
      }
    }
  }

  private dev.danmakuledger.edge.sync.SyncReport sync(EdgeNode node, Cluster cluster)
      throws Exception {
    return node.syncer(
            Cluster.HTTP, cluster.url(), cluster.serverKey(), SyncSettings.defaults(), clock)
        .sync();
  }
}
