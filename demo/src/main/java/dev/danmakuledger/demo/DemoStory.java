package dev.danmakuledger.demo;

import static dev.danmakuledger.demo.DemoPlan.AGENTS;
import static dev.danmakuledger.demo.DemoPlan.DIRECT;
import static dev.danmakuledger.demo.DemoPlan.LATE_MESSAGES;
import static dev.danmakuledger.demo.DemoPlan.LEGACY;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_CONFLICTS;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_REDIS_REPEATS;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_SHARE;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_SQL_REPEATS;
import static dev.danmakuledger.demo.DemoPlan.LOSSY;
import static dev.danmakuledger.demo.DemoPlan.OFFLINE;
import static dev.danmakuledger.demo.DemoPlan.RETRIES_AFTER_SYNC;
import static dev.danmakuledger.demo.DemoPlan.ROOMS;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LossyProxy;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.capture.IdempotencyConflictException;
import dev.danmakuledger.edge.importer.BilibiliEntry;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.SyncStoppedException;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The story {@code bin/demo} tells (docs/demo.md, "What it does", steps 1 to 8), one line per step:
 * the real Bilibili file captured offline with repeats, concurrent syncs, lost replies, a Redis
 * wipe, a late agent and a cloned device. It records what it injected ({@link Injected}, {@link
 * CloneRun}) and leaves every judgement to {@link DemoVerifier}.
 */
final class DemoStory {
  private final DemoCluster cluster;
  private final PrintStream out;
  private final Duration offline;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, SyncReport> lastSync = new ConcurrentHashMap<>();

  DemoStory(DemoCluster cluster, PrintStream out, Duration offline) {
    if (offline.isNegative()) {
      throw new IllegalArgumentException("offline: got " + offline + ", want >= 0");
    }
    this.cluster = cluster;
    this.out = out;
    this.offline = offline;
  }

  /** Steps 1 to 7: from an empty cluster to every device synced. */
  Injected tell() throws Exception {
    cluster.start();
    step(
        "Sync server on %s (embedded H2 under %s, Redis %s)",
        cluster.url(), cluster.serverDir(), cluster.redisUri());
    List<BilibiliEntry> entries = DemoSample.entries();
    step(
        "Data: %d real danmaku from a Bilibili video; %d go to the three edge agents,"
            + " %d to a legacy device without edge dedupe; rooms %s",
        entries.size(), entries.size() - LEGACY_SHARE, LEGACY_SHARE, ROOMS);
    cluster.enrollAll();
    step("Enrolled %s and %s (Ed25519 keys, enrolment token)", AGENTS, LEGACY);
    Shares shares = Shares.of(entries);
    EdgeRepeats edge = captureWithRepeats(shares.agents());
    step("%s goes offline: its %d captures wait on the device", OFFLINE, size(OFFLINE));
    Online online = onlineSyncAndLegacy(shares.legacy());
    cluster.wipeRedis();
    step("Redis lost everything (FLUSHALL: every dedupe key and room counter is gone)");
    List<RecordOutcome> afterWipe =
        cluster
            .legacy()
            .send(
                shares
                    .legacy()
                    .subList(
                        LEGACY_REDIS_REPEATS + LEGACY_CONFLICTS,
                        LEGACY_REDIS_REPEATS + LEGACY_CONFLICTS + LEGACY_SQL_REPEATS))
            .outcomes();
    Map<String, CaptureAck> retriesAfterSync = retryAfterSync(shares.agents().get(DIRECT));
    edge.repeats.merge(DIRECT, (long) RETRIES_AFTER_SYNC, Long::sum);
    for (String id : List.of(DIRECT, LOSSY)) {
      captureLate(cluster.agent(id), "after the Redis wipe");
      sync(id);
    }
    step(
        "After the wipe: the legacy box resent %d old messages, %s's viewers retried %d"
            + " synced ones, %s and %s sent %d new ones each",
        LEGACY_SQL_REPEATS, DIRECT, RETRIES_AFTER_SYNC, DIRECT, LOSSY, LATE_MESSAGES);
    step("%s stays offline for %d s more ...", OFFLINE, offline.toSeconds());
    Thread.sleep(offline.toMillis());
    sync(OFFLINE);
    step("%s back online: synced %d records", OFFLINE, lastSync.get(OFFLINE).verifiedSize());
    return new Injected(
        entries.size(),
        edge.doubleClicks,
        edge.retries,
        edge.repeats,
        edge.editedResends,
        edge.refused,
        online.legacyFirst,
        online.legacyRepeats,
        afterWipe,
        retriesAfterSync,
        online.proxiedBatches,
        online.lostReplies);
  }

  /**
   * Step 8: the offline agent's data directory is copied; the original and the copy each capture
   * new messages, the original syncs, then the copy tries to.
   */
  CloneRun cloneOffline() throws Exception {
    Path original = cluster.stopAgent(OFFLINE);
    Path cloneDir = cluster.work().resolve("agents").resolve(OFFLINE + "-clone");
    copyTree(original, cloneDir);
    captureLate(cluster.restartAgent(OFFLINE, original), "after its data directory was copied");
    boolean originalSynced = sync(OFFLINE).complete();
    SyncStoppedException.Reason stopped = null;
    Set<String> cloneKeys = new HashSet<>();
    try (EdgeNode clone = EdgeNode.open(cloneDir, cluster.clock())) {
      long before = clone.store().logState().size();
      captureLate(clone, "on a copy of its data directory");
      for (StoredRecord r : clone.records()) {
        if (r.index() >= before) {
          cloneKeys.add(r.idempotencyKey());
        }
      }
      try {
        cluster.sync(clone, cluster.url(), SyncSettings.defaults());
      } catch (SyncStoppedException e) {
        stopped = e.reason();
      }
    }
    return new CloneRun(originalSynced, stopped, cloneKeys);
  }

  /** Prints one step of the story. */
  void step(String format, Object... args) {
    out.printf(Locale.ROOT, "* " + format + "%n", args);
    out.flush();
  }

  /** The file split over the agents (round robin) and the legacy device (the tail). */
  private record Shares(Map<String, List<CaptureRequest>> agents, List<DanmakuRecord> legacy) {
    static Shares of(List<BilibiliEntry> entries) {
      Map<String, List<CaptureRequest>> agents = new LinkedHashMap<>();
      for (String id : AGENTS) {
        agents.put(id, new ArrayList<>());
      }
      List<DanmakuRecord> legacy = new ArrayList<>();
      int agentEntries = entries.size() - LEGACY_SHARE;
      for (int i = 0; i < entries.size(); i++) {
        String room = ROOMS.get((i / DemoPlan.ROOM_RUN) % ROOMS.size());
        if (i < agentEntries) {
          String id = AGENTS.get(i % AGENTS.size());
          agents.get(id).add(entries.get(i).request(id, room));
        } else {
          legacy.add(entries.get(i).request(LEGACY, room).draft(LEGACY));
        }
      }
      return new Shares(agents, legacy);
    }
  }

  /** What the capture step injected at the edge, per agent. */
  private static final class EdgeRepeats {
    final List<Injected.DoubleClick> doubleClicks = new ArrayList<>();
    final Map<String, CaptureAck> retries = new LinkedHashMap<>();
    final Map<String, Long> repeats = new LinkedHashMap<>();
    final Map<String, Long> editedResends = new LinkedHashMap<>();
    final Map<String, Long> refused = new LinkedHashMap<>();
  }

  /** Step 4: each agent's share captured with double clicks, retries and one edited resend. */
  private EdgeRepeats captureWithRepeats(Map<String, List<CaptureRequest>> shares)
      throws Exception {
    EdgeRepeats edge = new EdgeRepeats();
    for (Map.Entry<String, List<CaptureRequest>> e : shares.entrySet()) {
      CaptureService capture = cluster.agent(e.getKey()).capture();
      List<CaptureRequest> share = e.getValue();
      List<CompletableFuture<CaptureAck>> first = new ArrayList<>();
      List<CompletableFuture<CaptureAck>> second = new ArrayList<>();
      for (int i = 0; i < share.size(); i++) {
        first.add(capture.submit(share.get(i)));
        if (i % DemoPlan.DOUBLE_CLICK_EVERY == 0) {
          second.add(capture.submit(share.get(i)));
        }
      }
      long repeats = 0;
      for (int i = 0, j = 0; i < share.size(); i++) {
        CaptureAck a = CaptureService.await(first.get(i));
        if (i % DemoPlan.DOUBLE_CLICK_EVERY == 0) {
          edge.doubleClicks.add(new Injected.DoubleClick(a, CaptureService.await(second.get(j++))));
          repeats++;
        }
      }
      for (int i = 0; i < share.size(); i += DemoPlan.RETRY_EVERY) {
        edge.retries.put(share.get(i).key().toString(), capture.capture(share.get(i)));
        repeats++;
      }
      long refused = 0;
      try {
        capture.capture(edited(share.get(1), " (edited)"));
      } catch (IdempotencyConflictException expected) {
        refused++;
      }
      edge.repeats.put(e.getKey(), repeats);
      edge.editedResends.put(e.getKey(), 1L);
      edge.refused.put(e.getKey(), refused);
    }
    step(
        "Captured offline on three agents: %s records; injected %s repeats (double clicks every"
            + " %d, retries after the ack every %d) and one edited resend per agent",
        sizes(), edge.repeats, DemoPlan.DOUBLE_CLICK_EVERY, DemoPlan.RETRY_EVERY);
    return edge;
  }

  private static CaptureRequest edited(CaptureRequest original, String suffix) {
    return new CaptureRequest(
        original.key(),
        original.room(),
        original.user(),
        original.text() + suffix,
        original.playbackMs(),
        original.mode(),
        original.color(),
        original.fontSize());
  }

  /** What the concurrent step saw: the legacy device's replies and the lossy link's counters. */
  private record Online(
      Map<String, RecordOutcome> legacyFirst,
      List<RecordOutcome> legacyRepeats,
      long proxiedBatches,
      long lostReplies) {}

  /** Step 5: one agent syncs directly, one through a link that loses replies; the legacy box. */
  private Online onlineSyncAndLegacy(List<DanmakuRecord> legacyDrafts) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    Map<String, RecordOutcome> legacyFirst = new LinkedHashMap<>();
    List<RecordOutcome> legacyRepeats = new ArrayList<>();
    long batches;
    long dropped;
    try (LossyProxy lossy = LossyProxy.start(cluster.http(), cluster.url(), DemoPlan.DROP_EVERY)) {
      Future<?> a = pool.submit(() -> sync(DIRECT));
      Future<?> b =
          pool.submit(
              () ->
                  sync(
                      LOSSY,
                      lossy.url(),
                      SyncSettings.defaults().withBatchSize(DemoPlan.LOSSY_BATCH)));
      Future<?> l =
          pool.submit(
              () -> {
                legacyBeforeWipe(legacyDrafts, legacyFirst, legacyRepeats);
                return null;
              });
      a.get(2, TimeUnit.MINUTES);
      b.get(2, TimeUnit.MINUTES);
      l.get(2, TimeUnit.MINUTES);
      batches = lossy.batches();
      dropped = lossy.dropped();
    } finally {
      pool.shutdownNow();
    }
    step(
        "%s and %s synced concurrently; %s's link lost %d of %d batch replies (%d retries)",
        DIRECT, LOSSY, LOSSY, dropped, batches, lastSync.get(LOSSY).retries());
    return new Online(legacyFirst, legacyRepeats, batches, dropped);
  }

  /** The legacy box's share plus one banned message, then repeats and conflicting resends. */
  private void legacyBeforeWipe(
      List<DanmakuRecord> drafts,
      Map<String, RecordOutcome> firstOutcomes,
      List<RecordOutcome> repeatOutcomes)
      throws IOException {
    List<DanmakuRecord> first = new ArrayList<>(drafts);
    DanmakuRecord base = drafts.get(0);
    first.add(
        new DanmakuRecord(
            IdempotencyKey.generate(LEGACY, base.user(), cluster.clock(), random),
            LEGACY,
            base.room(),
            base.user(),
            "free coins " + DemoPlan.BANNED + " click now",
            null,
            1,
            0xFFFFFF,
            25,
            0,
            0));
    for (RecordOutcome o : cluster.legacy().send(first).outcomes()) {
      firstOutcomes.put(o.idempotencyKey(), o);
    }
    List<DanmakuRecord> repeats = new ArrayList<>(drafts.subList(0, LEGACY_REDIS_REPEATS));
    for (int i = 0; i < LEGACY_CONFLICTS; i++) {
      DanmakuRecord d = drafts.get(LEGACY_REDIS_REPEATS + i);
      repeats.add(
          new DanmakuRecord(
              d.key(),
              d.deviceId(),
              d.room(),
              d.user(),
              d.text() + " (resent with other text)",
              d.playbackMs(),
              d.mode(),
              d.color(),
              d.fontSize(),
              0,
              0));
    }
    repeatOutcomes.addAll(cluster.legacy().send(repeats).outcomes());
  }

  /** Step 6: viewers of the direct agent retry messages it has already synced. */
  private Map<String, CaptureAck> retryAfterSync(List<CaptureRequest> share) throws Exception {
    Map<String, CaptureAck> acks = new LinkedHashMap<>();
    for (int i = 0; i < RETRIES_AFTER_SYNC; i++) {
      CaptureRequest r = share.get(i * 7 + 3);
      acks.put(r.key().toString(), cluster.agent(DIRECT).capture().capture(r));
    }
    return acks;
  }

  private SyncReport sync(String id) throws IOException, InterruptedException {
    return sync(id, cluster.url(), SyncSettings.defaults());
  }

  private SyncReport sync(String id, String via, SyncSettings settings)
      throws IOException, InterruptedException {
    SyncReport r = cluster.sync(id, via, settings);
    lastSync.put(id, r);
    return r;
  }

  private void captureLate(EdgeNode node, String why) throws Exception {
    String id = node.deviceId();
    for (int i = 0; i < LATE_MESSAGES; i++) {
      String user = "viewer" + (i + 1);
      node.capture()
          .capture(
              new CaptureRequest(
                  IdempotencyKey.generate(id, user, cluster.clock(), random),
                  ROOMS.get(i % ROOMS.size()),
                  user,
                  "late message " + (i + 1) + " from " + id + " " + why,
                  null,
                  1,
                  0xFFFFFF,
                  25));
    }
  }

  private long size(String id) throws IOException {
    return cluster.agent(id).store().logState().size();
  }

  private Map<String, Long> sizes() throws IOException {
    Map<String, Long> m = new LinkedHashMap<>();
    for (String id : AGENTS) {
      m.put(id, size(id));
    }
    return m;
  }

  private static void copyTree(Path from, Path to) throws IOException {
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
}
