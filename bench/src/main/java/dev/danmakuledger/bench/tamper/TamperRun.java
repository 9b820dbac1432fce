package dev.danmakuledger.bench.tamper;

import dev.danmakuledger.bench.ingest.AgentDevice;
import dev.danmakuledger.bench.ingest.Dirs;
import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.bench.ingest.StoreSync;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.verify.VerifyReport;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.WireRecord;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * {@code bin/bench tamper} (docs/benchmarks.md): for each {@link Attack}, a real edge agent
 * captures and syncs part of its log to a sync server (in this JVM, embedded Redis and H2), then a
 * copy of its data directory is tampered with, audited with the agent's verify ({@code
 * LogVerifier}) and pushed to the server by the witness protocol. The run records whether verify
 * and the server caught it, and whether anything of the tampered copy was stored.
 */
public final class TamperRun {
  private static final int CAPTURED = 40;
  private static final int SYNCED = 20;

  private final Path root;
  private final String runId;
  private final LedgerClient client;
  private final StoreSync sync;
  private final String enrollToken;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  private TamperRun(Path root, String runId, LedgerClient client, String enrollToken, Clock clock) {
    this.root = root;
    this.runId = runId;
    this.client = client;
    this.sync = new StoreSync(client, 1000, clock);
    this.enrollToken = enrollToken;
    this.clock = clock;
  }

  /** Runs every attack against a fresh server; returns one result per attack. */
  public static List<AttackResult> run(PrintStream log) throws Exception {
    Path root = Files.createTempDirectory("danmaku-bench-tamper-");
    String runId = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    try (SyncServer server =
        SyncServer.start(ServerConfig.builder(root.resolve("server")).reviewRule(null).build())) {
      TamperRun run =
          new TamperRun(
              root,
              runId,
              new LedgerClient(server.baseUri(), Duration.ofSeconds(30)),
              server.enrollToken(),
              Clock.systemUTC());
      List<AttackResult> results = new ArrayList<>();
      for (Attack a : Attack.values()) {
        AttackResult r = run.attack(a);
        log.printf(
            "tamper: %-18s verify %-8s server %-22s stored %s%n",
            r.attack(),
            !r.agentApplicable() ? "n/a" : r.agentCaught() ? "caught" : "MISSED",
            r.serverCaught() ? r.server() : "MISSED (" + r.server() + ")",
            r.nothingStored() ? "nothing" : "SOMETHING: " + r.detail());
        results.add(r);
      }
      return results;
    } finally {
      Dirs.deleteTree(root);
    }
  }

  private AttackResult attack(Attack a) throws Exception {
    String name = a.label;
    switch (a) {
      case EDITED_RECORD, DELETED_RECORD, REORDERED_RECORDS, FORGED_SIGNATURE -> {
        Path original = prepare(name, CAPTURED, SYNCED);
        Path copy = copyOf(original, name + "-copy");
        try (Connection c = sqlite(copy)) {
          switch (a) {
            case EDITED_RECORD -> edit(c, 25);
            case DELETED_RECORD -> delete(c, 25);
            case REORDERED_RECORDS -> swap(c, 25, 26);
            default -> forge(c, original, SYNCED);
          }
        }
        return evaluate(a, copy, List.of(), original, SYNCED);
      }
      case CLONED_DEVICE -> {
        Path original = prepare(name, CAPTURED, SYNCED);
        Path clone = copyOf(original, name + "-clone");
        captureAndPush(original, 5, "original");
        captureAndPush(clone, 5, "clone", false);
        return evaluate(a, clone, List.of(), original, CAPTURED + 5);
      }
      case ROLLED_BACK_STORE -> {
        Path original = prepare(name, SYNCED, SYNCED);
        Path backup = copyOf(original, name + "-backup");
        captureAndPush(original, CAPTURED - SYNCED, "after-backup");
        captureAndPush(backup, 10, "restored", false);
        return evaluate(a, backup, List.of(), original, CAPTURED);
      }
      case REPLAYED_BATCH -> {
        Path original = prepare(name, CAPTURED, SYNCED);
        Path other = prepare(name + "-other", SYNCED, SYNCED);
        Path copy = copyOf(original, name + "-copy");
        List<StoredRecord> foreign;
        String foreignNote;
        try (EdgeStore b = EdgeStore.openReadOnly(EdgeStore.fileIn(other))) {
          foreign = b.records(0, SYNCED);
          foreignNote = b.latestCheckpoint().orElseThrow().note();
        }
        try (Connection c = sqlite(copy)) {
          appendForeign(c, CAPTURED, foreign, foreignNote);
        }
        List<WireRecord> wire = new ArrayList<>();
        for (StoredRecord r : foreign) {
          wire.add(new WireRecord(r.index(), Base64.getEncoder().encodeToString(r.canonical())));
        }
        LedgerClient.Reply<?> direct =
            client.postBatch(deviceId(original), new BatchRequest(SYNCED, wire, foreignNote, null));
        String directCode = direct.ok() ? "accepted" : direct.code();
        return evaluate(
            a,
            copy,
            List.of("direct replay of the other device's batch: " + directCode),
            original,
            SYNCED);
      }
      default -> throw new IllegalStateException("attack " + a + " has no procedure");
    }
  }

  /**
   * Audits and pushes {@code copy}; the server must keep exactly the original's legitimately synced
   * {@code legitSize} records and nothing that only the copy holds.
   */
  private AttackResult evaluate(
      Attack a, Path copy, List<String> extraRefusals, Path original, long legitSize)
      throws Exception {
    String deviceId = deviceId(original);
    boolean agentCaught;
    String agent;
    try {
      VerifyReport report = AgentDevice.verify(copy);
      agentCaught = !report.ok();
      agent = report.ok() ? "passed" : "caught: " + report.problem();
    } catch (IOException | RuntimeException e) {
      agentCaught = true;
      agent = "caught: store unreadable: " + e.getMessage();
    }
    StoreSync.Result pushed;
    try (EdgeStore store = EdgeStore.open(EdgeStore.fileIn(copy), Durability.FULL)) {
      pushed = sync.push(deviceId, store);
    }
    boolean directRefused = extraRefusals.stream().noneMatch(s -> s.endsWith(": accepted"));
    boolean serverCaught = !pushed.synced() && directRefused;
    String server = pushed.synced() ? "accepted" : code(pushed.refusal());
    for (String s : extraRefusals) {
      server += "; " + s.substring(s.lastIndexOf(": ") + 2);
    }
    Set<String> legit = keys(original, legitSize);
    List<String> stored = new ArrayList<>();
    for (Map.Entry<String, Long> k : keysWithIndex(copy).entrySet()) {
      if (legit.contains(k.getKey())) {
        continue;
      }
      LedgerClient.Reply<RoomMessage> m = client.message(k.getKey());
      if (m.ok() && deviceId.equals(m.body().deviceId())) {
        stored.add(k.getKey() + " (copy index " + k.getValue() + ")");
      }
    }
    long verified = client.log(deviceId).body().verifiedSize();
    boolean nothingStored = stored.isEmpty() && verified == legitSize;
    String detail =
        nothingStored
            ? String.valueOf(pushed.refusal())
            : "server verified " + verified + " (want " + legitSize + "), stored " + stored;
    return new AttackResult(
        a.label, a.agentCanSee, agentCaught, agent, serverCaught, server, nothingStored, detail);
  }

  private static String code(String refusal) {
    if (refusal == null) {
      return "refused";
    }
    int colon = refusal.indexOf(':');
    return colon > 0 ? refusal.substring(0, colon) : refusal;
  }

  private Path prepare(String name, int captured, int synced) throws Exception {
    Path dir = root.resolve(name).resolve("device");
    String deviceId = "tamper-" + name + "-" + runId;
    try (AgentDevice device = AgentDevice.openOrInit(dir, deviceId, clock)) {
      LedgerClient.Reply<?> enrolled =
          client.enroll(deviceId, device.publicKeyBase64(), enrollToken);
      if (!enrolled.ok()) {
        throw new IOException("enrol " + deviceId + ": " + enrolled.code());
      }
      capture(device, captured, name);
      StoreSync.Result r = sync.push(deviceId, device.store(), synced);
      if (!r.synced() || r.serverSize() != synced) {
        throw new IOException(
            "preparing " + deviceId + ": sync of " + synced + " records failed: " + r.refusal());
      }
    }
    return dir;
  }

  private void captureAndPush(Path dir, int n, String tag) throws Exception {
    captureAndPush(dir, n, tag, true);
  }

  private void captureAndPush(Path dir, int n, String tag, boolean push) throws Exception {
    try (AgentDevice device = AgentDevice.open(dir, clock)) {
      capture(device, n, tag);
      if (push) {
        StoreSync.Result r = sync.push(device.deviceId(), device.store());
        if (!r.synced()) {
          throw new IOException(
              "legitimate sync of " + device.deviceId() + " refused: " + r.refusal());
        }
      }
    }
  }

  private void capture(AgentDevice device, int n, String tag) throws Exception {
    for (int i = 0; i < n; i++) {
      String user = "u" + i;
      device.capture(
          new CaptureRequest(
              IdempotencyKey.generate(device.deviceId(), user, clock, random),
              "tamper-" + runId,
              user,
              tag + " #" + i,
              null,
              CaptureRequest.DEFAULT_MODE,
              CaptureRequest.DEFAULT_COLOR,
              CaptureRequest.DEFAULT_FONT_SIZE));
    }
  }

  private static String deviceId(Path dir) throws IOException {
    return dev.danmakuledger.edge.config.AgentConfig.load(dir).deviceId();
  }

  private static Set<String> keys(Path dir, long below) throws Exception {
    Set<String> out = new HashSet<>();
    for (Map.Entry<String, Long> e : keysWithIndex(dir).entrySet()) {
      if (e.getValue() < below) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  private static Map<String, Long> keysWithIndex(Path dir) throws SQLException {
    Map<String, Long> out = new LinkedHashMap<>();
    try (Connection c = sqlite(dir);
        PreparedStatement ps =
            c.prepareStatement("SELECT idempotency_key, idx FROM records ORDER BY idx");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
    }
    return out;
  }

  private static Connection sqlite(Path dir) throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + EdgeStore.fileIn(dir));
  }

  private static void edit(Connection c, long idx) throws SQLException {
    DanmakuRecord r = CanonicalRecord.decode(read(c, idx, "canonical"));
    DanmakuRecord edited =
        new DanmakuRecord(
            r.key(),
            r.deviceId(),
            r.room(),
            r.user(),
            r.text() + " (edited)",
            r.playbackMs(),
            r.mode(),
            r.color(),
            r.fontSize(),
            r.hlc(),
            r.index());
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE records SET canonical = ?, leaf_hash = ?, content_hash = ? WHERE idx = ?")) {
      ps.setBytes(1, edited.canonicalBytes());
      ps.setBytes(2, edited.leafHash());
      ps.setString(3, edited.contentHash());
      ps.setLong(4, idx);
      ps.executeUpdate();
    }
  }

  private static void delete(Connection c, long idx) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM records WHERE idx = ?")) {
      ps.setLong(1, idx);
      ps.executeUpdate();
    }
  }

  /** Swaps two rows' contents, leaving the index column in place. */
  private static void swap(Connection c, long a, long b) throws SQLException {
    String[] cols = {"idempotency_key", "content_hash", "canonical", "leaf_hash"};
    Object[] rowA = new Object[cols.length];
    Object[] rowB = new Object[cols.length];
    for (int i = 0; i < cols.length; i++) {
      rowA[i] = readObject(c, a, cols[i]);
      rowB[i] = readObject(c, b, cols[i]);
    }
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE records SET idempotency_key = ? WHERE idx = ?")) {
      ps.setString(1, "swap-" + a);
      ps.setLong(2, a);
      ps.executeUpdate();
    }
    write(c, b, cols, rowA);
    write(c, a, cols, rowB);
  }

  /** Re-signs every checkpoint above {@code above} with another key under the device's origin. */
  private void forge(Connection c, Path original, long above) throws Exception {
    String deviceId = deviceId(original);
    String origin = DeviceLog.origin(deviceId);
    NoteSigner other = NoteSigner.generate(origin, random);
    NoteVerifier real = NoteVerifier.parse(AgentDevice.identityOf(original).signer().verifierKey());
    List<long[]> sizes = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    try (PreparedStatement ps =
            c.prepareStatement("SELECT size, note FROM checkpoints WHERE size > ? ORDER BY size");
        ResultSet rs = bind(ps, above).executeQuery()) {
      while (rs.next()) {
        sizes.add(new long[] {rs.getLong(1)});
        notes.add(rs.getString(2));
      }
    }
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE checkpoints SET note = ? WHERE size = ?")) {
      for (int i = 0; i < sizes.size(); i++) {
        Checkpoint cp = Checkpoints.open(notes.get(i), origin, real);
        ps.setString(1, Checkpoints.sign(cp, other));
        ps.setLong(2, sizes.get(i)[0]);
        ps.executeUpdate();
      }
    }
  }

  /** Appends another device's records and its checkpoint note after {@code size} records. */
  private static void appendForeign(
      Connection c, long size, List<StoredRecord> foreign, String foreignNote) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO records(idx, idempotency_key, content_hash, canonical, leaf_hash,"
                + " captured_at, checkpoint_size) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      long idx = size;
      for (StoredRecord r : foreign) {
        ps.setLong(1, idx++);
        ps.setString(2, r.idempotencyKey());
        ps.setString(3, r.contentHash());
        ps.setBytes(4, r.canonical());
        ps.setBytes(5, r.leafHash());
        ps.setLong(6, r.capturedAt());
        ps.setLong(7, size + foreign.size());
        ps.executeUpdate();
      }
    }
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO checkpoints(size, note, created_at) VALUES (?, ?, ?)")) {
      ps.setLong(1, size + foreign.size());
      ps.setString(2, foreignNote);
      ps.setLong(3, System.currentTimeMillis());
      ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement("UPDATE log_state SET size = ? WHERE id = 0")) {
      ps.setLong(1, size + foreign.size());
      ps.executeUpdate();
    }
  }

  private static PreparedStatement bind(PreparedStatement ps, long v) throws SQLException {
    ps.setLong(1, v);
    return ps;
  }

  private static byte[] read(Connection c, long idx, String col) throws SQLException {
    return (byte[]) readObject(c, idx, col);
  }

  private static Object readObject(Connection c, long idx, String col) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement("SELECT " + col + " FROM records WHERE idx = ?");
        ResultSet rs = bind(ps, idx).executeQuery()) {
      if (!rs.next()) {
        throw new SQLException("no record " + idx);
      }
      return rs.getObject(1);
    }
  }

  private static void write(Connection c, long idx, String[] cols, Object[] values)
      throws SQLException {
    StringBuilder sql = new StringBuilder("UPDATE records SET ");
    for (int i = 0; i < cols.length; i++) {
      sql.append(i == 0 ? "" : ", ").append(cols[i]).append(" = ?");
    }
    sql.append(" WHERE idx = ?");
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      for (int i = 0; i < values.length; i++) {
        ps.setObject(i + 1, values[i]);
      }
      ps.setLong(values.length + 1, idx);
      ps.executeUpdate();
    }
  }

  private Path copyOf(Path dir, String name) throws IOException {
    Path to = root.resolve(name).resolve("device");
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        if (!f.getFileName().toString().endsWith(".lock")) {
          Files.copy(f, to.resolve(f.getFileName()));
        }
      }
    }
    return to;
  }
}
