package dev.danmakuledger.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.demo.harness.LegacyDevice;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.importer.BilibiliEntry;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.testkit.BilibiliSample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * End to end, "Redis FLUSHALL": Redis forgets every dedupe key and room counter between syncs (on a
 * Redis this test owns). An agent restored from a backup taken before its sync re-syncs and gets
 * the original outcomes back; repeats that reach the server as new log records (a device without
 * edge dedupe) are answered DUPLICATE with the original seq by the SQL unique key; room numbering
 * continues after the highest number in SQL, burned numbers are tombstones.
 */
class RedisFlushIT {
  static final int AGENT = 100;
  static final int LEGACY = 20;
  static final int REPEATS = 10;
  final Clock clock = Clock.systemUTC();
  @TempDir Path tmp;

  static Stream<Backend> backends() {
    return Backend.withOwnRedis().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("backends")
  void sqlGuardAnswersDuplicateAndNumberingContinuesAfterFlushall(Backend backend)
      throws Exception {
    String room = Names.unique("room");
    String device = Names.unique("kiosk");
    Path agentDir = tmp.resolve("agent");
    Path backupDir = tmp.resolve("backup");
    List<BilibiliEntry> entries = BilibiliSample.entries();
    try (Cluster cluster = Cluster.start(backend, tmp.resolve("server"), c -> c.reviewRule(null))) {
      LedgerReader reader = cluster.reader();
      Map<String, Long> originalSeq = new HashMap<>();
      try (EdgeNode node = EdgeNode.init(agentDir, device, clock)) {
        List<CompletableFuture<CaptureAck>> acks = new ArrayList<>();
        for (BilibiliEntry e : entries.subList(0, AGENT)) {
          acks.add(node.capture().submit(e.request(device, room)));
        }
        for (CompletableFuture<CaptureAck> a : acks) {
          CaptureService.await(a);
        }
        node.enroll(Cluster.HTTP, cluster.url(), cluster.enrollToken(), clock);
      }
      copyTree(agentDir, backupDir);
      try (EdgeNode node = EdgeNode.open(agentDir, clock)) {
        assertTrue(sync(node, cluster).complete());
        for (StoredRecord r : node.records()) {
          originalSeq.put(r.idempotencyKey(), r.seq());
        }
      }

      cluster.flushRedis();
      deleteTree(agentDir);
      copyTree(backupDir, agentDir);
      try (EdgeNode restored = EdgeNode.open(agentDir, clock)) {
        assertEquals(AGENT, restored.store().outcomeCounts().get("UNSYNCED"));
        SyncReport r = sync(restored, cluster);
        assertTrue(r.complete(), r.toString());
        assertEquals(0, r.batches(), "the restored log is already verified: acks are fetched");
        for (StoredRecord rec : restored.records()) {
          assertEquals(originalSeq.get(rec.idempotencyKey()), rec.seq(), "original outcome");
        }
      }
      assertEquals(AGENT, LedgerAssertions.roomIsComplete(reader, room).size());

      LegacyDevice legacy =
          new LegacyDevice(
              Names.unique("legacy"), new SyncClient(Cluster.HTTP, cluster.url(), clock));
      legacy.enroll(cluster.enrollToken());
      List<DanmakuRecord> drafts = new ArrayList<>();
      for (BilibiliEntry e : entries.subList(AGENT, AGENT + LEGACY)) {
        drafts.add(e.request(legacy.deviceId(), room).draft(legacy.deviceId()));
      }
      Map<String, RecordOutcome> first = new HashMap<>();
      for (RecordOutcome o : legacy.send(drafts).outcomes()) {
        assertEquals(Outcome.CONFIRMED, o.outcome());
        first.put(o.idempotencyKey(), o);
      }
      assertEquals(
          AGENT + 1L,
          first.values().stream().mapToLong(RecordOutcome::seq).min().orElseThrow(),
          "counter re-seeded from SQL after the flush");

      cluster.flushRedis();
      BatchResponse repeats = legacy.send(drafts.subList(0, REPEATS));
      for (RecordOutcome o : repeats.outcomes()) {
        RecordOutcome orig = first.get(o.idempotencyKey());
        assertEquals(Outcome.DUPLICATE, o.outcome(), o.toString());
        assertEquals(orig.seq(), o.seq(), "original seq");
        assertEquals(orig.messageId(), o.messageId(), "original message id");
        assertEquals("CONFIRMED", o.originalStatus());
      }
      assertEquals(REPEATS, reader.overview().duplicates().sql());

      try (EdgeNode node = EdgeNode.open(agentDir, clock)) {
        for (BilibiliEntry e : entries.subList(AGENT + LEGACY, AGENT + LEGACY + 5)) {
          node.capture().capture(e.request(device, room));
        }
        assertTrue(sync(node, cluster).complete());
        LedgerAssertions.agentMatchesServer(node, reader);
      }
      List<RoomMessage> slots = LedgerAssertions.roomIsComplete(reader, room);
      assertEquals(AGENT + LEGACY + REPEATS + 5, slots.size());
      assertEquals(
          REPEATS, LedgerAssertions.count(slots, RoomMessage.Status.TOMBSTONE), "burned numbers");
      assertEquals(AGENT + LEGACY + 5, LedgerAssertions.count(slots, RoomMessage.Status.CONFIRMED));
      long firstNewSeq = slots.get(slots.size() - 5).seq();
      assertEquals(AGENT + LEGACY + REPEATS + 1, firstNewSeq, "numbering continues");
    }
  }

  private SyncReport sync(EdgeNode node, Cluster cluster) throws Exception {
    return node.syncer(
            Cluster.HTTP, cluster.url(), cluster.serverKey(), SyncSettings.defaults(), clock)
        .sync();
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else if (!p.getFileName().toString().equals("agent.lock")) {
          Files.copy(p, target);
        }
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
