package dev.danmakuledger.demo;

import static dev.danmakuledger.demo.DemoPlan.AGENTS;
import static dev.danmakuledger.demo.DemoPlan.LATE_MESSAGES;
import static dev.danmakuledger.demo.DemoPlan.LEGACY;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_CONFLICTS;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_REDIS_REPEATS;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_SHARE;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_SQL_REPEATS;
import static dev.danmakuledger.demo.DemoPlan.ROOMS;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.demo.harness.LegacyDevice;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.DedupeStats;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.Overview;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The demo's checks (docs/demo.md, "The checks"). Each compares two independent sources: what the
 * story injected and what the agents acknowledged against what the server returns over its HTTP
 * API, never a counter against itself.
 */
final class DemoVerifier {
  private final DemoCluster cluster;
  private final LedgerReader reader;
  private final List<Checks.Check> checks = new ArrayList<>();
  private final Map<String, String> roomLines = new LinkedHashMap<>();
  private final Map<String, String> rootLines = new LinkedHashMap<>();

  private DemoVerifier(DemoCluster cluster) {
    this.cluster = cluster;
    this.reader = cluster.reader();
  }

  /** Compares every agent and the legacy device with what the server returns. */
  static Verification verify(DemoCluster cluster, Injected injected) throws IOException {
    return new DemoVerifier(cluster).run(injected);
  }

  private Verification run(Injected injected) throws IOException {
    Map<String, Long> captured = new LinkedHashMap<>();
    for (String id : AGENTS) {
      captured.put(id, cluster.agent(id).store().logState().size());
    }
    verifyEdgeAcks(injected);
    Set<String> agentKeys = verifyAgentsAgainstServer(injected.fileEntries());
    verifyLegacy(injected);
    verifyRooms(agentKeys, injected.legacyFirst().keySet());
    verifyRoots();
    Overview overview = verifyLayers(injected);
    verifyRetriesAfterSync(injected.retriesAfterSync());
    return new Verification(checks, captured, roomLines, rootLines, overview);
  }

  private void check(String name, boolean passed, String detail) {
    checks.add(new Checks.Check(name, passed, detail));
  }

  private void verifyEdgeAcks(Injected injected) {
    long ok = 0;
    for (Injected.DoubleClick d : injected.doubleClicks()) {
      if (d.first().index() == d.second().index() && d.first().repeat() != d.second().repeat()) {
        ok++;
      }
    }
    int all = injected.doubleClicks().size();
    check(
        "double clicks get the original ack",
        ok == all && all > 0,
        ok + " of " + all + " second submits returned the first's index");
    List<String> failures = new ArrayList<>();
    for (Map.Entry<String, CaptureAck> e : injected.retries().entrySet()) {
      if (!e.getValue().repeat()) {
        failures.add("retry of " + e.getKey() + " was not a repeat");
      }
    }
    check(
        "repeats acknowledged as repeats",
        failures.isEmpty() && !injected.retries().isEmpty(),
        failures.isEmpty() ? "every retry got its original ack" : failures.toString());
  }

  /** Per agent: outcomes and receipt; then every record against the server's row. */
  private Set<String> verifyAgentsAgainstServer(int fileEntries) throws IOException {
    long captured = 0;
    Set<String> agentKeys = new HashSet<>();
    Map<String, Long> mismatches = new TreeMap<>();
    long compared = 0;
    for (String id : AGENTS) {
      EdgeNode node = cluster.agent(id);
      List<StoredRecord> records = node.records();
      captured += records.size();
      Map<String, Long> outcomes = node.store().outcomeCounts();
      long receipt = node.store().latestReceipt().map(StoredCheckpoint::size).orElse(-1L);
      check(
          id + ": every record has an outcome and a receipt",
          !outcomes.containsKey("UNSYNCED") && receipt == records.size(),
          "outcomes " + outcomes + ", receipt covers " + receipt + " of " + records.size());
      for (StoredRecord r : records) {
        agentKeys.add(r.idempotencyKey());
        DanmakuRecord rec = CanonicalRecord.decode(r.canonical());
        compared++;
        String problem = compare(id, r, rec, reader.message(r.idempotencyKey()));
        if (problem != null) {
          mismatches.merge(problem, 1L, Long::sum);
        }
      }
    }
    long expected = fileEntries - LEGACY_SHARE + 2L * LATE_MESSAGES;
    check(
        "captured on the agents = entries given to them",
        captured == expected,
        "captured " + captured + ", want " + expected + " (file share + late messages)");
    check(
        "agent acknowledgements match server rows",
        mismatches.isEmpty(),
        compared
            + " records compared field by field (room, seq, message id, status, text,"
            + " device index)"
            + (mismatches.isEmpty() ? "" : "; mismatches " + mismatches));
    return agentKeys;
  }

  private static String compare(
      String id, StoredRecord r, DanmakuRecord rec, Optional<RoomMessage> m) {
    if (m.isEmpty()) {
      return "missing on server";
    }
    RoomMessage s = m.get();
    if (!id.equals(s.deviceId()) || s.deviceIndex() == null || s.deviceIndex() != r.index()) {
      return "different device or index";
    }
    if (!rec.room().equals(s.room())
        || !rec.text().equals(s.text())
        || !rec.user().equals(s.user())) {
      return "different content";
    }
    if (r.seq() == null
        || r.seq() != s.seq()
        || !String.valueOf(r.messageId()).equals(s.messageId())) {
      return "different seq or message id";
    }
    if (!r.outcome().equals(s.status().name())) {
      return "outcome " + r.outcome() + " vs status " + s.status();
    }
    return null;
  }

  /** The legacy box's replies: its own messages, then what Redis and SQL answered to repeats. */
  private void verifyLegacy(Injected injected) {
    Map<String, RecordOutcome> first = injected.legacyFirst();
    long confirmed =
        first.values().stream()
            .filter(o -> o.outcome() == Outcome.CONFIRMED || o.outcome() == Outcome.PENDING)
            .count();
    long rejected =
        first.values().stream()
            .filter(o -> o.outcome() == Outcome.REJECTED && o.seq() != null)
            .count();
    check(
        "legacy box: new messages confirmed, banned one rejected",
        confirmed == LEGACY_SHARE && rejected == 1,
        confirmed + " CONFIRMED or PENDING (review), " + rejected + " REJECTED by moderation");
    long redisOk = 0;
    long conflictOk = 0;
    for (RecordOutcome o : injected.legacyRepeats()) {
      RecordOutcome orig = first.get(o.idempotencyKey());
      boolean sameOriginal =
          orig != null
              && o.seq() != null
              && o.seq().equals(orig.seq())
              && String.valueOf(o.messageId()).equals(orig.messageId());
      if (o.outcome() == Outcome.DUPLICATE && sameOriginal) {
        redisOk++;
      } else if (o.outcome() == Outcome.CONFLICT && sameOriginal) {
        conflictOk++;
      }
    }
    check(
        "Redis: repeats answered DUPLICATE with the original seq and id",
        redisOk == LEGACY_REDIS_REPEATS,
        redisOk + " of " + LEGACY_REDIS_REPEATS);
    check(
        "same key, other text answered CONFLICT (never stored)",
        conflictOk == LEGACY_CONFLICTS,
        conflictOk + " of " + LEGACY_CONFLICTS);
    long sqlOk = 0;
    for (RecordOutcome o : injected.legacyAfterWipe()) {
      RecordOutcome orig = first.get(o.idempotencyKey());
      if (o.outcome() == Outcome.DUPLICATE
          && orig != null
          && orig.seq().equals(o.seq())
          && orig.messageId().equals(o.messageId())) {
        sqlOk++;
      }
    }
    check(
        "SQL guard: repeats after the Redis wipe answered DUPLICATE with the original seq",
        sqlOk == LEGACY_SQL_REPEATS,
        sqlOk + " of " + LEGACY_SQL_REPEATS);
  }

  /** Every room read back in seq order: 1..high, no key twice, exactly what was captured. */
  private void verifyRooms(Set<String> agentKeys, Set<String> legacyKeys) throws IOException {
    Set<String> seen = new HashSet<>();
    long duplicates = 0;
    long tombstones = 0;
    boolean contiguous = true;
    for (String room : ROOMS) {
      List<RoomMessage> slots = reader.room(room);
      long expectSeq = 1;
      long messages = 0;
      long roomTombstones = 0;
      for (RoomMessage m : slots) {
        if (m.seq() != expectSeq++) {
          contiguous = false;
        }
        if (m.status() == RoomMessage.Status.TOMBSTONE) {
          roomTombstones++;
          continue;
        }
        messages++;
        if (!seen.add(m.idempotencyKey())) {
          duplicates++;
        }
      }
      tombstones += roomTombstones;
      roomLines.put(
          room,
          String.format(
              Locale.ROOT,
              "seq 1..%d complete: %d messages + %d tombstones",
              slots.size(),
              messages,
              roomTombstones));
    }
    Set<String> want = new HashSet<>(agentKeys);
    want.addAll(legacyKeys);
    check(
        "per-room numbering is 1..high with no gap",
        contiguous,
        "every slot of " + ROOMS.size() + " rooms read back in seq order: " + roomLines.values());
    check("every key stored exactly once", duplicates == 0, duplicates + " keys found twice");
    check(
        "server holds exactly what was captured",
        seen.equals(want),
        seen.size() + " keys in rooms, " + want.size() + " captured (agents + legacy box)");
    check(
        "numbers burned by SQL-caught repeats are tombstones",
        tombstones == LEGACY_SQL_REPEATS,
        tombstones + " tombstones, want " + LEGACY_SQL_REPEATS);
  }

  /** Each device log as the server verified it against the device's own root and signatures. */
  private void verifyRoots() throws IOException {
    NoteVerifier serverKey = cluster.serverKey();
    for (String id : AGENTS) {
      EdgeNode node = cluster.agent(id);
      LogState s = reader.log(id);
      long size = node.store().logState().size();
      String root = node.rootHex();
      String problem = null;
      if (s.verifiedSize() != size || !root.equalsIgnoreCase(s.rootHex())) {
        problem = "server " + s.verifiedSize() + "/" + s.rootHex();
      } else {
        try {
          NoteVerifier device =
              NoteVerifier.ofEd25519(DeviceLog.origin(id), node.identity().signer().publicKey());
          Checkpoint cp = Checkpoints.open(s.checkpoint(), DeviceLog.origin(id), device);
          String receipt = node.store().latestReceipt().orElseThrow().note();
          SignedNote.open(receipt, serverKey);
          Checkpoint rc = Checkpoints.open(receipt, DeviceLog.origin(id), device);
          if (cp.size() != size
              || rc.size() != size
              || !HexFormat.of().formatHex(rc.root()).equals(root)) {
            problem = "checkpoint or receipt for another size/root";
          }
        } catch (NoteVerificationException e) {
          problem = "signature: " + e.getMessage();
        }
      }
      rootLines.put(id, "size " + size + ", root " + root.substring(0, 16) + "...");
      check(
          id + ": server-verified root = device root",
          problem == null,
          problem == null
              ? "size " + size + ", root " + root + "; device checkpoint and server receipt verify"
              : problem);
    }
    LegacyDevice legacy = cluster.legacy();
    LogState l = reader.log(LEGACY);
    check(
        LEGACY + ": server-verified root = device root",
        l.verifiedSize() == legacy.size()
            && HexFormat.of().formatHex(legacy.root()).equalsIgnoreCase(l.rootHex()),
        "size " + legacy.size());
  }

  /** Duplicates per layer as the server reports them against what was injected at each layer. */
  private Overview verifyLayers(Injected injected) throws IOException {
    Overview overview = reader.overview();
    long edgeCaught = 0;
    long edgeConflicts = 0;
    for (String id : AGENTS) {
      DedupeStats stats = cluster.agent(id).capture().stats();
      edgeCaught += stats.duplicates();
      edgeConflicts += stats.conflicts();
    }
    long injectedRepeats = injected.edgeRepeatsTotal();
    long injectedConflicts = injected.editedResendsTotal();
    check(
        "edge caught every injected repeat (Bloom + exact)",
        edgeCaught == injectedRepeats
            && edgeConflicts == injectedConflicts
            && injected.editedResendsRefusedTotal() == injectedConflicts,
        edgeCaught
            + " repeats caught of "
            + injectedRepeats
            + " injected; "
            + edgeConflicts
            + " edge conflicts of "
            + injectedConflicts);
    long edgeReported = overview.duplicates().edge();
    check(
        "server shows the edge-reported repeats",
        edgeReported == injectedRepeats,
        "/admin/overview duplicates.edge = " + edgeReported + ", want " + injectedRepeats);
    check(
        "server shows repeats caught by Redis",
        overview.duplicates().redis() == LEGACY_REDIS_REPEATS + LEGACY_CONFLICTS,
        "duplicates.redis = "
            + overview.duplicates().redis()
            + ", want "
            + (LEGACY_REDIS_REPEATS + LEGACY_CONFLICTS)
            + " (repeats and the conflicting resends, caught before SQL)");
    check(
        "server shows repeats caught by the SQL guard",
        overview.duplicates().sql() == LEGACY_SQL_REPEATS,
        "duplicates.sql = " + overview.duplicates().sql() + ", want " + LEGACY_SQL_REPEATS);
    check(
        "server conflicts = injected",
        overview.conflicts() == LEGACY_CONFLICTS,
        "conflicts = " + overview.conflicts() + ", want " + LEGACY_CONFLICTS);
    check("no fork among honest devices", overview.forks() == 0, "forks = " + overview.forks());
    return overview;
  }

  private void verifyRetriesAfterSync(Map<String, CaptureAck> retries) throws IOException {
    long ok = 0;
    for (Map.Entry<String, CaptureAck> e : retries.entrySet()) {
      Optional<RoomMessage> m = reader.message(e.getKey());
      CaptureAck a = e.getValue();
      if (a.repeat() && m.isPresent() && a.seq() != null && a.seq() == m.get().seq()) {
        ok++;
      }
    }
    check(
        "retries after sync get the original ack with the server seq",
        ok == retries.size() && !retries.isEmpty(),
        ok + " of " + retries.size());
  }
}
