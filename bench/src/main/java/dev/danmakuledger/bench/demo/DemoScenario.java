package dev.danmakuledger.bench.demo;

import dev.danmakuledger.bench.demo.BilibiliEntries.Entry;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.capture.DedupeStats;
import dev.danmakuledger.edge.capture.IdempotencyConflictException;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.SyncStoppedException;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import okhttp3.OkHttpClient;

/**
 * The story {@code bin/demo} tells (issue 6 "The main job"), step by step, followed by a
 * verification report. Every check compares state on one side with state on the other: what the
 * agents acknowledged and hold against what the server returns over HTTP, what the demo injected
 * against what each layer reports.
 */
public final class DemoScenario implements AutoCloseable {
  static final List<String> ROOMS = List.of("live-1", "live-2", "live-3", "live-4");
  static final List<String> AGENTS = List.of("kiosk-a", "kiosk-b", "kiosk-c");
  static final String LEGACY = "legacy-box";
  static final String BANNED = "spam-giveaway";

  /** Entries of the file given to the legacy device (the rest go to the three agents). */
  static final int LEGACY_SHARE = 60;

  static final int DOUBLE_CLICK_EVERY = 10;
  static final int RETRY_EVERY = 20;
  static final int LEGACY_REDIS_REPEATS = 15;
  static final int LEGACY_CONFLICTS = 2;
  static final int LEGACY_SQL_REPEATS = 10;
  static final int LATE_MESSAGES = 3;
  static final int RETRIES_AFTER_SYNC = 10;

  private final Path work;
  private final PrintStream out;
  private final Clock clock;
  private final Duration offline;
  private final Checks checks = new Checks();
  private final OkHttpClient http = SyncClient.defaultHttp();
  private final SecureRandom random = new SecureRandom();
  private final ExecutorService pool = Executors.newFixedThreadPool(3);
  private final Map<String, EdgeNode> agents = new LinkedHashMap<>();
  private final Map<String, Long> edgeRepeatsInjected = new LinkedHashMap<>();
  private final Map<String, Long> edgeConflictsInjected = new LinkedHashMap<>();
  private final Map<String, SyncReport> lastSync = new HashMap<>();
  private EmbeddedRedis redis;
  private SyncServer server;
  private String url;
  private NoteVerifier serverKey;
  private LedgerReader reader;
  private LegacyDevice legacy;
  private final Map<String, RecordOutcome> legacyFirst = new HashMap<>();
  private final Set<String> legacyKeys = new HashSet<>();
  private final List<DanmakuRecord> legacyDrafts = new ArrayList<>();
  private long lostReplies;
  private long proxiedBatches;

  public DemoScenario(Path work, PrintStream out, Clock clock, Duration offline) {
    this.work = work;
    this.out = out;
    this.clock = clock;
    this.offline = offline;
  }

  /** The base URL of the running server (valid after {@link #run()}). */
  public String serverUrl() {
    return url;
  }

  /** The admin token file of the running server. */
  public Path adminTokenFile() {
    return work.resolve("server").resolve("admin.token");
  }

  /** Runs the story and the checks; returns the checks. */
  public Checks run() throws Exception {
    long started = System.nanoTime();
    startServer();
    List<Entry> entries = BilibiliEntries.sample();
    step(
        "Data: %d real danmaku from a Bilibili video; %d go to the three edge agents,"
            + " %d to a legacy device without edge dedupe; rooms %s",
        entries.size(), entries.size() - LEGACY_SHARE, LEGACY_SHARE, ROOMS);
    enrollAll();
    Map<String, List<CaptureRequest>> shares = split(entries);
    captureWithRepeats(shares);
    step("kiosk-c goes offline: its %d captures wait on the device", size("kiosk-c"));
    onlineSyncAndLegacy();
    wipeRedis();
    afterWipe(shares);
    step("kiosk-c stays offline for %d s more ...", offline.toSeconds());
    Thread.sleep(offline.toMillis());
    sync("kiosk-c", url, SyncSettings.defaults());
    step("kiosk-c back online: synced %d records", lastSync.get("kiosk-c").verifiedSize());
    verify(entries.size());
    cloneScenario();
    report(entries.size(), Duration.ofNanos(System.nanoTime() - started));
    return checks;
  }

  private void startServer() throws IOException {
    Path serverDir = work.resolve("server");
    redis = EmbeddedRedis.start();
    server =
        SyncServer.start(
            ServerConfig.builder(serverDir)
                .redisUri(redis.uri())
                .bannedWords(List.of(BANNED))
                .build());
    url = server.baseUri().toString();
    serverKey = NoteVerifier.parse(server.serverVerifierKey());
    reader =
        new LedgerReader(
            http, url, Files.readString(adminTokenFile(), StandardCharsets.UTF_8).strip());
    step("Sync server on %s (embedded H2 under %s, Redis %s)", url, serverDir, redis.uri());
  }

  private void enrollAll() throws IOException {
    String token =
        Files.readString(work.resolve("server").resolve("enroll.token"), StandardCharsets.UTF_8)
            .strip();
    for (String id : AGENTS) {
      EdgeNode node = EdgeNode.init(work.resolve("agents").resolve(id), id, clock);
      agents.put(id, node);
      node.enroll(http, url, token, clock);
    }
    legacy = new LegacyDevice(LEGACY, new SyncClient(http, url, clock));
    legacy.enroll(token);
    step("Enrolled %s and %s (Ed25519 keys, enrolment token)", AGENTS, LEGACY);
  }

  private Map<String, List<CaptureRequest>> split(List<Entry> entries) {
    Map<String, List<CaptureRequest>> shares = new LinkedHashMap<>();
    for (String id : AGENTS) {
      shares.put(id, new ArrayList<>());
    }
    int agentEntries = entries.size() - LEGACY_SHARE;
    for (int i = 0; i < entries.size(); i++) {
      String room = ROOMS.get((i / 25) % ROOMS.size());
      if (i < agentEntries) {
        String id = AGENTS.get(i % AGENTS.size());
        shares.get(id).add(entries.get(i).request(id, room));
      } else {
        CaptureRequest r = entries.get(i).request(LEGACY, room);
        legacyDrafts.add(r.draft(LEGACY));
      }
    }
    return shares;
  }

  /** Captures each agent's share with double clicks, retries after the ack and one conflict. */
  private void captureWithRepeats(Map<String, List<CaptureRequest>> shares) throws Exception {
    long doubleClicksOk = 0;
    long doubleClicks = 0;
    for (Map.Entry<String, List<CaptureRequest>> e : shares.entrySet()) {
      EdgeNode node = agents.get(e.getKey());
      CaptureService capture = node.capture();
      List<CaptureRequest> share = e.getValue();
      List<CompletableFuture<CaptureAck>> first = new ArrayList<>();
      List<CompletableFuture<CaptureAck>> second = new ArrayList<>();
      for (int i = 0; i < share.size(); i++) {
        first.add(capture.submit(share.get(i)));
        if (i % DOUBLE_CLICK_EVERY == 0) {
          second.add(capture.submit(share.get(i)));
        }
      }
      long repeats = 0;
      for (int i = 0, j = 0; i < share.size(); i++) {
        CaptureAck a = CaptureService.await(first.get(i));
        if (i % DOUBLE_CLICK_EVERY == 0) {
          CaptureAck b = CaptureService.await(second.get(j++));
          doubleClicks++;
          repeats++;
          if (b.index() == a.index() && (a.repeat() != b.repeat())) {
            doubleClicksOk++;
          }
        }
      }
      for (int i = 0; i < share.size(); i += RETRY_EVERY) {
        CaptureAck retry = capture.capture(share.get(i));
        repeats++;
        checkQuietly(retry.repeat(), "retry of " + share.get(i).key() + " was not a repeat");
      }
      CaptureRequest original = share.get(1);
      CaptureRequest edited =
          new CaptureRequest(
              original.key(),
              original.room(),
              original.user(),
              original.text() + " (edited)",
              original.playbackMs(),
              original.mode(),
              original.color(),
              original.fontSize());
      long conflicts = 0;
      try {
        capture.capture(edited);
      } catch (IdempotencyConflictException expected) {
        conflicts++;
      }
      edgeRepeatsInjected.put(e.getKey(), repeats);
      edgeConflictsInjected.put(e.getKey(), conflicts);
    }
    checks.check(
        "double clicks get the original ack",
        doubleClicksOk == doubleClicks,
        doubleClicksOk + " of " + doubleClicks + " second submits returned the first's index");
    step(
        "Captured offline on three agents: %s records; injected %s repeats (double clicks every"
            + " %d, retries after the ack every %d) and one edited resend per agent",
        sizes(), edgeRepeatsInjected, DOUBLE_CLICK_EVERY, RETRY_EVERY);
  }

  private final List<String> quietFailures = new ArrayList<>();

  private void checkQuietly(boolean ok, String failure) {
    if (!ok) {
      quietFailures.add(failure);
    }
  }

  /** kiosk-a syncs directly, kiosk-b through a link that loses replies; the legacy box sends. */
  private void onlineSyncAndLegacy() throws Exception {
    Future<?> a = pool.submit(() -> sync("kiosk-a", url, SyncSettings.defaults()));
    Future<?> b;
    try (LossyProxy lossy = LossyProxy.start(http, url, 2)) {
      b =
          pool.submit(
              () -> sync("kiosk-b", lossy.url(), SyncSettings.defaults().withBatchSize(100)));
      Future<?> l = pool.submit(this::legacyBeforeWipe);
      a.get(2, TimeUnit.MINUTES);
      b.get(2, TimeUnit.MINUTES);
      l.get(2, TimeUnit.MINUTES);
      lostReplies = lossy.dropped();
      proxiedBatches = lossy.batches();
    }
    step(
        "kiosk-a and kiosk-b synced concurrently; kiosk-b's link lost %d of %d batch replies"
            + " (%d retries)",
        lostReplies, proxiedBatches, lastSync.get("kiosk-b").retries());
  }

  private Void sync(String id, String via, SyncSettings settings) throws Exception {
    EdgeNode node = agents.get(id);
    SyncReport r = node.syncer(http, via, serverKey, settings, clock).sync();
    synchronized (lastSync) {
      lastSync.put(id, r);
    }
    return null;
  }

  private Void legacyBeforeWipe() throws IOException {
    List<DanmakuRecord> first = new ArrayList<>(legacyDrafts);
    DanmakuRecord base = legacyDrafts.get(0);
    first.add(
        new DanmakuRecord(
            IdempotencyKey.generate(LEGACY, base.user(), clock, random),
            LEGACY,
            base.room(),
            base.user(),
            "free coins " + BANNED + " click now",
            null,
            1,
            0xFFFFFF,
            25,
            0,
            0));
    BatchResponse r = legacy.send(first);
    for (RecordOutcome o : r.outcomes()) {
      legacyFirst.put(o.idempotencyKey(), o);
      legacyKeys.add(o.idempotencyKey());
    }
    List<DanmakuRecord> repeats = new ArrayList<>(legacyDrafts.subList(0, LEGACY_REDIS_REPEATS));
    for (int i = 0; i < LEGACY_CONFLICTS; i++) {
      DanmakuRecord d = legacyDrafts.get(LEGACY_REDIS_REPEATS + i);
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
    legacyRepeatOutcomes.addAll(legacy.send(repeats).outcomes());
    return null;
  }

  private final List<RecordOutcome> legacyRepeatOutcomes = new ArrayList<>();
  private final List<RecordOutcome> legacyAfterWipeOutcomes = new ArrayList<>();

  private void wipeRedis() {
    RedisWipe.flushAll(redis.uri());
    step("Redis lost everything (FLUSHALL: every dedupe key and room counter is gone)");
  }

  private final Map<String, CaptureAck> retriesAfterSync = new LinkedHashMap<>();

  private void afterWipe(Map<String, List<CaptureRequest>> shares) throws Exception {
    List<DanmakuRecord> repeats =
        new ArrayList<>(
            legacyDrafts.subList(
                LEGACY_REDIS_REPEATS + LEGACY_CONFLICTS,
                LEGACY_REDIS_REPEATS + LEGACY_CONFLICTS + LEGACY_SQL_REPEATS));
    legacyAfterWipeOutcomes.addAll(legacy.send(repeats).outcomes());
    List<CaptureRequest> aShare = shares.get("kiosk-a");
    for (int i = 0; i < RETRIES_AFTER_SYNC; i++) {
      CaptureRequest r = aShare.get(i * 7 + 3);
      retriesAfterSync.put(r.key().toString(), agents.get("kiosk-a").capture().capture(r));
    }
    edgeRepeatsInjected.merge("kiosk-a", (long) RETRIES_AFTER_SYNC, Long::sum);
    for (String id : List.of("kiosk-a", "kiosk-b")) {
      captureLate(agents.get(id), "after the Redis wipe");
      sync(id, url, SyncSettings.defaults());
    }
    step(
        "After the wipe: the legacy box resent %d old messages, kiosk-a's viewers retried %d"
            + " synced ones, kiosk-a and kiosk-b sent %d new ones each",
        LEGACY_SQL_REPEATS, RETRIES_AFTER_SYNC, LATE_MESSAGES);
  }

  private void captureLate(EdgeNode node, String why) throws Exception {
    String id = node.deviceId();
    for (int i = 0; i < LATE_MESSAGES; i++) {
      String user = "viewer" + (i + 1);
      node.capture()
          .capture(
              new CaptureRequest(
                  IdempotencyKey.generate(id, user, clock, random),
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
    return agents.get(id).store().logState().size();
  }

  private Map<String, Long> sizes() throws IOException {
    Map<String, Long> m = new LinkedHashMap<>();
    for (String id : AGENTS) {
      m.put(id, size(id));
    }
    return m;
  }

  private Map<String, Long> capturedAtVerify = Map.of();

  /** Compares every agent and the legacy device with what the server returns. */
  private void verify(int fileEntries) throws IOException {
    capturedAtVerify = sizes();
    checks.check(
        "repeats acknowledged as repeats",
        quietFailures.isEmpty(),
        quietFailures.isEmpty() ? "every retry got its original ack" : quietFailures.toString());
    long captured = 0;
    long expected = 0;
    Set<String> agentKeys = new HashSet<>();
    Map<String, Long> mismatches = new TreeMap<>();
    long compared = 0;
    for (String id : AGENTS) {
      EdgeNode node = agents.get(id);
      List<StoredRecord> records = node.records();
      captured += records.size();
      Map<String, Long> outcomes = node.store().outcomeCounts();
      long receipt = node.store().latestReceipt().map(StoredCheckpoint::size).orElse(-1L);
      checks.check(
          id + ": every record has an outcome and a receipt",
          !outcomes.containsKey("UNSYNCED") && receipt == records.size(),
          "outcomes " + outcomes + ", receipt covers " + receipt + " of " + records.size());
      for (StoredRecord r : records) {
        agentKeys.add(r.idempotencyKey());
        DanmakuRecord rec = CanonicalRecord.decode(r.canonical());
        Optional<RoomMessage> m = reader.message(r.idempotencyKey());
        compared++;
        String problem = compare(id, r, rec, m);
        if (problem != null) {
          mismatches.merge(problem, 1L, Long::sum);
        }
      }
    }
    expected = fileEntries - LEGACY_SHARE + 2L * LATE_MESSAGES;
    checks.check(
        "captured on the agents = entries given to them",
        captured == expected,
        "captured " + captured + ", want " + expected + " (file share + late messages)");
    checks.check(
        "agent acknowledgements match server rows",
        mismatches.isEmpty(),
        compared
            + " records compared field by field (room, seq, message id, status, text,"
            + " device index)"
            + (mismatches.isEmpty() ? "" : "; mismatches " + mismatches));

    verifyLegacy();
    verifyRooms(agentKeys);
    verifyRoots();
    verifyLayers();
    verifyRetriesAfterSync();
  }

  private String compare(String id, StoredRecord r, DanmakuRecord rec, Optional<RoomMessage> m) {
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
    if (!r.outcome().equals(s.status())) {
      return "outcome " + r.outcome() + " vs status " + s.status();
    }
    return null;
  }

  private void verifyLegacy() throws IOException {
    long confirmed =
        legacyFirst.values().stream()
            .filter(o -> o.outcome() == Outcome.CONFIRMED || o.outcome() == Outcome.PENDING)
            .count();
    long rejected =
        legacyFirst.values().stream()
            .filter(o -> o.outcome() == Outcome.REJECTED && o.seq() != null)
            .count();
    checks.check(
        "legacy box: new messages confirmed, banned one rejected",
        confirmed == LEGACY_SHARE && rejected == 1,
        confirmed + " CONFIRMED or PENDING (review), " + rejected + " REJECTED by moderation");
    long redisOk = 0;
    long conflictOk = 0;
    for (RecordOutcome o : legacyRepeatOutcomes) {
      RecordOutcome orig = legacyFirst.get(o.idempotencyKey());
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
    checks.check(
        "Redis: repeats answered DUPLICATE with the original seq and id",
        redisOk == LEGACY_REDIS_REPEATS,
        redisOk + " of " + LEGACY_REDIS_REPEATS);
    checks.check(
        "same key, other text answered CONFLICT (never stored)",
        conflictOk == LEGACY_CONFLICTS,
        conflictOk + " of " + LEGACY_CONFLICTS);
    long sqlOk = 0;
    for (RecordOutcome o : legacyAfterWipeOutcomes) {
      RecordOutcome orig = legacyFirst.get(o.idempotencyKey());
      if (o.outcome() == Outcome.DUPLICATE
          && orig != null
          && orig.seq().equals(o.seq())
          && orig.messageId().equals(o.messageId())) {
        sqlOk++;
      }
    }
    checks.check(
        "SQL guard: repeats after the Redis wipe answered DUPLICATE with the original seq",
        sqlOk == LEGACY_SQL_REPEATS,
        sqlOk + " of " + LEGACY_SQL_REPEATS);
  }

  private final Map<String, String> roomLines = new LinkedHashMap<>();

  private void verifyRooms(Set<String> agentKeys) throws IOException {
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
        if ("TOMBSTONE".equals(m.status())) {
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
    checks.check(
        "per-room numbering is 1..high with no gap",
        contiguous,
        "every slot of " + ROOMS.size() + " rooms read back in seq order: " + roomLines.values());
    checks.check(
        "every key stored exactly once", duplicates == 0, duplicates + " keys found twice");
    checks.check(
        "server holds exactly what was captured",
        seen.equals(want),
        seen.size() + " keys in rooms, " + want.size() + " captured (agents + legacy box)");
    checks.check(
        "numbers burned by SQL-caught repeats are tombstones",
        tombstones == LEGACY_SQL_REPEATS,
        tombstones + " tombstones, want " + LEGACY_SQL_REPEATS);
  }

  private final Map<String, String> rootLines = new LinkedHashMap<>();

  private void verifyRoots() throws IOException {
    for (String id : AGENTS) {
      EdgeNode node = agents.get(id);
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
      checks.check(
          id + ": server-verified root = device root",
          problem == null,
          problem == null
              ? "size " + size + ", root " + root + "; device checkpoint and server receipt verify"
              : problem);
    }
    LogState l = reader.log(LEGACY);
    checks.check(
        LEGACY + ": server-verified root = device root",
        l.verifiedSize() == legacy.size()
            && HexFormat.of().formatHex(legacy.root()).equalsIgnoreCase(l.rootHex()),
        "size " + legacy.size());
  }

  private Overview overview;

  private void verifyLayers() throws IOException {
    overview = reader.overview();
    long edgeReported = 0;
    long edgeCaught = 0;
    long edgeConflicts = 0;
    long injected = edgeRepeatsInjected.values().stream().mapToLong(Long::longValue).sum();
    for (String id : AGENTS) {
      edgeCaught += agents.get(id).capture().stats().duplicates();
      edgeConflicts += agents.get(id).capture().stats().conflicts();
    }
    edgeReported = overview.duplicates().edge();
    long conflictsInjected =
        edgeConflictsInjected.values().stream().mapToLong(Long::longValue).sum();
    checks.check(
        "edge caught every injected repeat (Bloom + exact)",
        edgeCaught == injected && edgeConflicts == conflictsInjected,
        edgeCaught
            + " repeats caught of "
            + injected
            + " injected; "
            + edgeConflicts
            + " edge conflicts of "
            + conflictsInjected);
    checks.check(
        "server shows the edge-reported repeats",
        edgeReported == injected,
        "/admin/overview duplicates.edge = " + edgeReported + ", want " + injected);
    checks.check(
        "server shows repeats caught by Redis",
        overview.duplicates().redis() == LEGACY_REDIS_REPEATS + LEGACY_CONFLICTS,
        "duplicates.redis = "
            + overview.duplicates().redis()
            + ", want "
            + (LEGACY_REDIS_REPEATS + LEGACY_CONFLICTS)
            + " (repeats and the conflicting resends, caught before SQL)");
    checks.check(
        "server shows repeats caught by the SQL guard",
        overview.duplicates().sql() == LEGACY_SQL_REPEATS,
        "duplicates.sql = " + overview.duplicates().sql() + ", want " + LEGACY_SQL_REPEATS);
    checks.check(
        "server conflicts = injected",
        overview.conflicts() == LEGACY_CONFLICTS,
        "conflicts = " + overview.conflicts() + ", want " + LEGACY_CONFLICTS);
    checks.check(
        "no fork among honest devices", overview.forks() == 0, "forks = " + overview.forks());
  }

  private void verifyRetriesAfterSync() throws IOException {
    long ok = 0;
    for (Map.Entry<String, CaptureAck> e : retriesAfterSync.entrySet()) {
      Optional<RoomMessage> m = reader.message(e.getKey());
      CaptureAck a = e.getValue();
      if (a.repeat() && m.isPresent() && a.seq() != null && a.seq() == m.get().seq()) {
        ok++;
      }
    }
    checks.check(
        "retries after sync get the original ack with the server seq",
        ok == retriesAfterSync.size(),
        ok + " of " + retriesAfterSync.size());
  }

  private String forkLine = "";

  /** A copy of kiosk-c's data directory starts capturing on its own: the server must refuse it. */
  private void cloneScenario() throws Exception {
    Path original = agents.get("kiosk-c").dir();
    agents.remove("kiosk-c").close();
    Path cloneDir = work.resolve("agents").resolve("kiosk-c-clone");
    copyTree(original, cloneDir);
    EdgeNode c = EdgeNode.open(original, clock);
    agents.put("kiosk-c", c);
    captureLate(c, "after its data directory was copied");
    sync("kiosk-c", url, SyncSettings.defaults());
    boolean originalSynced = lastSync.get("kiosk-c").complete();
    SyncStoppedException stopped = null;
    Set<String> cloneKeys = new HashSet<>();
    try (EdgeNode clone = EdgeNode.open(cloneDir, clock)) {
      long before = clone.store().logState().size();
      captureLate(clone, "on a copy of its data directory");
      for (StoredRecord r : clone.records()) {
        if (r.index() >= before) {
          cloneKeys.add(r.idempotencyKey());
        }
      }
      try {
        clone.syncer(http, url, serverKey, SyncSettings.defaults(), clock).sync();
      } catch (SyncStoppedException e) {
        stopped = e;
      }
    }
    long leaked = 0;
    for (String k : cloneKeys) {
      if (reader.message(k).isPresent()) {
        leaked++;
      }
    }
    DeviceSummary summary =
        reader.devices().devices().stream()
            .filter(d -> d.deviceId().equals("kiosk-c"))
            .findFirst()
            .orElse(null);
    Overview after = reader.overview();
    forkLine =
        "the original synced its "
            + LATE_MESSAGES
            + " new messages"
            + (originalSynced ? "" : " NOT")
            + "; the clone's sync stopped with "
            + (stopped == null ? "nothing" : stopped.reason())
            + "; /admin/devices shows kiosk-c "
            + (summary == null ? "missing" : summary.status())
            + "; forks = "
            + after.forks()
            + "; "
            + leaked
            + " of the clone's "
            + cloneKeys.size()
            + " messages reached the server";
    checks.check(
        "cloned device refused as a fork and quarantined",
        stopped != null
            && stopped.reason() == SyncStoppedException.Reason.FORK
            && summary != null
            && Set.of("FORKED", "QUARANTINED").contains(summary.status())
            && "QUARANTINED".equals(reader.log("kiosk-c").status())
            && originalSynced
            && after.forks() == 1
            && leaked == 0
            && !cloneKeys.isEmpty(),
        forkLine);
    step("Cloned kiosk-c's data directory: %s", forkLine);
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

  private void report(int fileEntries, Duration took) throws IOException {
    out.println();
    out.println("=== Danmaku Ledger demo: verification report ===");
    long stored =
        overview.outcomes().getOrDefault("CONFIRMED", 0L)
            + overview.outcomes().getOrDefault("PENDING", 0L)
            + overview.outcomes().getOrDefault("REJECTED", 0L);
    out.printf(
        Locale.ROOT,
        "captured      %d on 3 edge agents %s + %d records on the legacy box (%d new), from %d"
            + " file entries%n",
        capturedAtVerify.values().stream().mapToLong(Long::longValue).sum(),
        capturedAtVerify,
        legacy.size(),
        legacyKeys.size(),
        fileEntries);
    out.printf(
        Locale.ROOT,
        "stored        %d messages (server outcomes %s)%n",
        stored,
        overview.outcomes());
    long edgeRepeats = edgeRepeatsInjected.values().stream().mapToLong(Long::longValue).sum();
    out.printf(
        Locale.ROOT,
        "duplicates    edge (Bloom + exact) %d | Redis %d | SQL guard %d   (injected %d at the"
            + " edge, %d + %d conflicting via the legacy box before the wipe, %d after it)%n",
        overview.duplicates().edge(),
        overview.duplicates().redis(),
        overview.duplicates().sql(),
        edgeRepeats,
        LEGACY_REDIS_REPEATS,
        LEGACY_CONFLICTS,
        LEGACY_SQL_REPEATS);
    long bloomChecks = 0;
    long maybes = 0;
    long bloomConfirmed = 0;
    long sameCommit = 0;
    long falsePositives = 0;
    for (String id : AGENTS) {
      DedupeStats d = agents.get(id).capture().stats();
      bloomChecks += d.checks();
      maybes += d.maybes();
      bloomConfirmed += d.bloomHits();
      falsePositives += d.falsePositives();
      sameCommit += d.duplicates() - d.bloomHits() - d.bloomMisses();
    }
    out.printf(
        Locale.ROOT,
        "  at the edge %d Bloom checks, %d \"maybe\" -> %d confirmed by the exact SQLite lookup,"
            + " %d false positives; %d repeats caught inside one group commit%n",
        bloomChecks,
        maybes,
        bloomConfirmed,
        falsePositives,
        sameCommit);
    out.printf(
        Locale.ROOT,
        "conflicts     %d at the server, %d refused at the edges%n",
        overview.conflicts(),
        edgeConflictsInjected.values().stream().mapToLong(Long::longValue).sum());
    out.printf(
        Locale.ROOT,
        "lost replies  %d of %d batch replies to kiosk-b dropped; resent, nothing stored twice%n",
        lostReplies,
        proxiedBatches);
    for (Map.Entry<String, String> e : roomLines.entrySet()) {
      out.printf(Locale.ROOT, "room %-8s %s%n", e.getKey(), e.getValue());
    }
    for (Map.Entry<String, String> e : rootLines.entrySet()) {
      out.printf(Locale.ROOT, "device %-8s verified by the server: %s%n", e.getKey(), e.getValue());
    }
    out.printf(Locale.ROOT, "forks         %s%n", forkLine);
    out.println();
    for (Checks.Check c : checks.all()) {
      out.printf(Locale.ROOT, "[%s] %s: %s%n", c.passed() ? "PASS" : "FAIL", c.name(), c.detail());
    }
    out.println();
    out.printf(
        Locale.ROOT,
        "%d checks, %d failed, in %.1f s%n",
        checks.all().size(),
        checks.failures(),
        took.toMillis() / 1000.0);
  }

  private void step(String format, Object... args) {
    out.printf(Locale.ROOT, "* " + format + "%n", args);
    out.flush();
  }

  private boolean closed;

  /** Stops the agents, the server and Redis; safe to call twice and from a shutdown hook. */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    IOException failure = null;
    pool.shutdownNow();
    for (EdgeNode n : agents.values()) {
      try {
        n.close();
      } catch (IOException e) {
        failure = e;
      }
    }
    if (server != null) {
      server.close();
    }
    if (redis != null) {
      redis.close();
    }
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
    if (failure != null) {
      throw failure;
    }
  }
}
