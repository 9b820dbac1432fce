package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.FreshDatabase;
import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.sync.Backoff;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.edge.sync.Sleeper;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncStoppedException;
import dev.danmakuledger.edge.sync.Syncer;
import dev.danmakuledger.edge.verify.LogVerifier;
import dev.danmakuledger.edge.verify.VerifyReport;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import okhttp3.OkHttpClient;

/**
 * {@code bin/bench chaos} (issue 8): exactly-once under faults. Several edge agents (child
 * processes) capture and sync continuously through a {@link FaultProxy} to a sync server (a child
 * process) backed by a Redis the harness owns and by MariaDB (a fresh database on the given server)
 * or the server's embedded H2. For a bounded time the harness injects, at random moments, the
 * faults of {@link FaultKind} (in shuffled rounds, so a short run still meets each kind; the proxy
 * drops connections and loses responses at random throughout; the first round always completes,
 * even past the duration); then it stops the faults and the agents, syncs every agent's store to
 * the end, and checks what was acknowledged against what was stored.
 */
public final class ChaosHarness {
  private static final HexFormat HEX = HexFormat.of();

  /**
   * What to run.
   *
   * @param duration how long faults are injected
   * @param agents agents capturing concurrently, 1..16
   * @param rooms rooms the messages spread over, 1..64
   * @param ratePerAgent captures per second per agent, 0 < rate <= 500
   * @param seed seed of the fault schedule and the proxy
   * @param jdbcUrl a MariaDB/MySQL server URL (fresh database, not restarted: the harness does not
   *     own it), or null
   * @param ownMariaDb start a MariaDB the harness owns (and restarts as a fault); with neither this
   *     nor {@code jdbcUrl} the server uses its embedded H2
   * @param dropRate proxy connection-drop probability
   * @param loseRate proxy lost-response probability
   */
  public record Options(
      Duration duration,
      int agents,
      int rooms,
      double ratePerAgent,
      long seed,
      String jdbcUrl,
      boolean ownMariaDb,
      double dropRate,
      double loseRate) {
    public Options {
      if (ownMariaDb && jdbcUrl != null) {
        throw new IllegalArgumentException(
            "database: got both --jdbc and --own-mariadb, want at most one");
      }
      if (duration == null || duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("duration: got " + duration + ", want > 0");
      }
      if (jdbcUrl != null) {
        FreshDatabase.requireServerUrl(jdbcUrl);
      }
      if (agents < 1 || agents > 16) {
        throw new IllegalArgumentException("agents: got " + agents + ", want 1..16");
      }
      if (rooms < 1 || rooms > 64) {
        throw new IllegalArgumentException("rooms: got " + rooms + ", want 1..64");
      }
      if (!(ratePerAgent > 0 && ratePerAgent <= 500)) {
        throw new IllegalArgumentException("rate: got " + ratePerAgent + ", want 0 < rate <= 500");
      }
      if (!(dropRate >= 0 && loseRate >= 0 && dropRate + loseRate <= 0.5)) {
        throw new IllegalArgumentException(
            "proxy rates: got drop " + dropRate + ", lose " + loseRate + ", want >= 0, sum <= 0.5");
      }
    }
  }

  /** The outcome: faults injected, faults skipped (with why), the checks and their verdicts. */
  public record Summary(
      Map<String, Long> faults,
      Map<String, String> skipped,
      List<Check> checks,
      Map<String, Long> totals) {
    public boolean passed() {
      return checks.stream().allMatch(Check::ok);
    }
  }

  /** One end-of-run check. */
  public record Check(String name, boolean ok, String detail) {}

  private final Options options;
  private final String classpath;
  private final PrintStream log;
  private final Path root;
  private final String runId;
  private final Random random;
  private final Map<FaultKind, Long> injected = new LinkedHashMap<>();
  private final Map<String, String> skipped = new LinkedHashMap<>();
  private final List<String> rooms = new ArrayList<>();
  private final List<Child> agents = new ArrayList<>();
  private final List<String> deviceIds = new ArrayList<>();
  private final List<Path> agentDirs = new ArrayList<>();
  private Child redis;
  private OwnedMariaDb mariadb;
  private Child server;
  private int serverPort;
  private int redisPort;
  private FaultProxy proxy;
  private LedgerClient direct;
  private String enrollToken;

  private ChaosHarness(Options options, PrintStream log, Path root, String classpath) {
    this.options = options;
    this.classpath = classpath;
    this.log = log;
    this.root = root;
    this.runId = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    this.random = new Random(options.seed());
    for (FaultKind k : FaultKind.values()) {
      injected.put(k, 0L);
    }
  }

  /**
   * Runs the whole scenario in {@code root}.
   *
   * @param classpath the class path of the child JVMs (server and agents): one holding the bench
   *     module and its dependencies
   */
  public static Summary run(Options options, PrintStream log, Path root, String classpath)
      throws Exception {
    Files.createDirectories(root);
    ChaosHarness h = new ChaosHarness(options, log, root, classpath);
    try {
      String url = options.jdbcUrl();
      if (options.ownMariaDb()) {
        h.mariadb = OwnedMariaDb.start(root.resolve("mariadb"), freePort());
        waitForPort(h.mariadb.port(), Duration.ofSeconds(60), "mariadbd");
        url = h.mariadb.url();
      }
      try (FreshDatabase db = FreshDatabase.create(url, root.resolve("server"))) {
        return h.runWith(db);
      }
    } finally {
      h.stopAll();
    }
  }

  private Summary runWith(FreshDatabase db) throws Exception {
    startRedis();
    startServer(db);
    proxy =
        new FaultProxy(
            new InetSocketAddress("127.0.0.1", serverPort),
            options.dropRate(),
            options.loseRate(),
            options.seed());
    for (int r = 0; r < options.rooms(); r++) {
      rooms.add("chaos-" + runId + "-r" + r);
    }
    for (int a = 0; a < options.agents(); a++) {
      startAgent(a);
    }
    if (mariadb == null) {
      skipped.put(
          FaultKind.MARIADB_RESTART.label,
          db.embedded()
              ? "no MariaDB: the server's embedded H2 lives in the server process, killed with it"
              : "the MariaDB at --jdbc is not the harness's own, so it is never restarted"
                  + " (use --own-mariadb)");
    }
    log.printf(
        Locale.ROOT,
        "chaos: %d agents at %.0f captures/s, %d rooms, server on %s%s, Redis :%d (owned), %s;"
            + " injecting faults for %s%n",
        options.agents(),
        options.ratePerAgent(),
        options.rooms(),
        db.describe(),
        mariadb == null ? "" : " (harness-owned mariadbd)",
        redisPort,
        "proxy :" + proxy.port(),
        options.duration());
    inject();
    return finish();
  }

  // ---- parts --------------------------------------------------------------------------------

  private void startRedis() throws IOException, InterruptedException {
    redisPort = freePort();
    Path binary = RedisBinary.find();
    redis =
        new Child(
            "redis",
            List.of(
                binary.toString(),
                "--port",
                Integer.toString(redisPort),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no"),
            root.resolve("redis.log"));
    redis.start();
    waitForPort(redisPort, Duration.ofSeconds(20), "redis-server");
  }

  private void startServer(FreshDatabase db) throws Exception {
    serverPort = freePort();
    Path data = root.resolve("server");
    List<String> cmd = new ArrayList<>(javaCommand("512m"));
    cmd.addAll(
        List.of(
            "dev.danmakuledger.server.Main",
            "--data-dir",
            data.toString(),
            "--port",
            Integer.toString(serverPort),
            "--redis",
            "redis://127.0.0.1:" + redisPort,
            "--no-review"));
    if (!db.embedded()) {
      cmd.addAll(List.of("--jdbc", db.url()));
    }
    server = new Child("sync-server", cmd, root.resolve("server.log"));
    server.start();
    direct = new LedgerClient(URI.create("http://127.0.0.1:" + serverPort), Duration.ofSeconds(10));
    waitReady(Duration.ofSeconds(90));
    enrollToken = Files.readString(data.resolve("enroll.token"), StandardCharsets.UTF_8).strip();
  }

  private void startAgent(int a) throws IOException {
    String deviceId = "chaos-" + runId + "-a" + a;
    Path dir = root.resolve("agents").resolve(deviceId);
    Files.createDirectories(dir);
    List<String> cmd = new ArrayList<>(javaCommand("160m"));
    cmd.addAll(
        List.of(
            ChaosAgent.class.getName(),
            dir.toString(),
            deviceId,
            "http://127.0.0.1:" + proxy.port(),
            enrollToken,
            String.join(",", rooms),
            Double.toString(options.ratePerAgent()),
            Long.toString(options.seed() + a)));
    Child c = new Child(deviceId, cmd, root.resolve(deviceId + ".log"));
    c.start();
    agents.add(c);
    deviceIds.add(deviceId);
    agentDirs.add(dir);
  }

  // ---- faults -------------------------------------------------------------------------------

  private void inject() throws Exception {
    long end = System.nanoTime() + options.duration().toNanos();
    List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.values()));
    kinds.remove(FaultKind.PROXY_DROPPED_CONNECTION);
    kinds.remove(FaultKind.PROXY_LOST_RESPONSE);
    if (mariadb == null) {
      kinds.remove(FaultKind.MARIADB_RESTART);
    }
    List<FaultKind> cycle = new ArrayList<>();
    boolean firstRoundDone = false;
    while (true) {
      long gapMillis = 2_000 + random.nextInt(6_000);
      long left = (end - System.nanoTime()) / 1_000_000;
      if (left <= gapMillis && firstRoundDone) {
        Thread.sleep(Math.max(0, left));
        break;
      }
      Thread.sleep(firstRoundDone ? gapMillis : Math.min(gapMillis, Math.max(500, left)));
      if (cycle.isEmpty()) {
        cycle.addAll(kinds);
        java.util.Collections.shuffle(cycle, random);
      }
      FaultKind k = cycle.remove(cycle.size() - 1);
      firstRoundDone |= cycle.isEmpty();
      apply(k);
      injected.merge(k, 1L, Long::sum);
    }
    proxy.setRates(0, 0);
    proxy.setDelayMillis(0);
    injected.put(
        FaultKind.PROXY_DROPPED_CONNECTION, proxy.injected().get(FaultProxy.Fault.DROP_CONNECTION));
    injected.put(
        FaultKind.PROXY_LOST_RESPONSE, proxy.injected().get(FaultProxy.Fault.LOSE_RESPONSE));
  }

  private void apply(FaultKind k) throws Exception {
    switch (k) {
      case SERVER_SIGKILL -> {
        server.kill();
        log.println("chaos: SIGKILL sync-server");
        Thread.sleep(random.nextInt(2_000));
        server.start();
        waitReady(Duration.ofSeconds(90));
      }
      case AGENT_SIGKILL -> {
        int a = random.nextInt(agents.size());
        agents.get(a).kill();
        log.println("chaos: SIGKILL " + agents.get(a).name() + " (mid-capture)");
        Thread.sleep(random.nextInt(2_000));
        agents.get(a).start();
      }
      case REDIS_RESTART_EMPTY -> {
        redis.kill();
        log.println("chaos: SIGKILL redis-server; restarting it empty");
        Thread.sleep(random.nextInt(1_500));
        redis.start();
        waitForPort(redisPort, Duration.ofSeconds(20), "redis-server");
      }
      case MARIADB_RESTART -> {
        mariadb.process().kill();
        log.println("chaos: SIGKILL mariadbd; restarting it");
        Thread.sleep(random.nextInt(1_500));
        mariadb.process().start();
        waitForPort(mariadb.port(), Duration.ofSeconds(60), "mariadbd");
      }
      case SERVER_PAUSE -> {
        long ms = 1_000 + random.nextInt(3_000);
        log.println("chaos: SIGSTOP sync-server for " + ms + " ms");
        server.signal(true);
        try {
          Thread.sleep(ms);
        } finally {
          server.signal(false);
        }
      }
      case PROXY_SLOW -> {
        long ms = 50 + random.nextInt(250);
        log.println("chaos: proxy delays every chunk by " + ms + " ms for 5 s");
        proxy.setDelayMillis(ms);
        Thread.sleep(5_000);
        proxy.setDelayMillis(0);
      }
      case PROXY_CUT_ALL -> {
        log.println("chaos: proxy cuts every open connection");
        proxy.cutAll();
      }
      default -> throw new IllegalStateException("fault " + k + " is not injected on a schedule");
    }
  }

  // ---- end of run ---------------------------------------------------------------------------

  private Summary finish() throws Exception {
    log.println("chaos: faults stopped; stopping agents and syncing every store to the end");
    for (Child a : agents) {
      a.kill();
    }
    server.signal(false);
    if (!server.alive()) {
      server.start();
    }
    waitReady(Duration.ofSeconds(90));
    Map<String, Long> totals = new LinkedHashMap<>();
    List<Check> checks = new ArrayList<>();
    Map<String, Set<String>> captured = new LinkedHashMap<>();
    Map<String, String> roots = new HashMap<>();
    Map<String, Long> sizes = new HashMap<>();
    long ackedTotal = 0;
    List<String> lostAcks = new ArrayList<>();
    List<String> unsynced = new ArrayList<>();
    List<String> badLogs = new ArrayList<>();
    for (int a = 0; a < agentDirs.size(); a++) {
      String id = deviceIds.get(a);
      Path dir = agentDirs.get(a);
      try (EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
        String refusal = finalSync(dir, store);
        if (refusal != null) {
          unsynced.add(id + ": " + refusal);
        }
        Set<String> keys = new HashSet<>(store.keysFrom(0));
        captured.put(id, keys);
        sizes.put(id, store.recordCount());
        DeviceIdentity identity = DeviceIdentity.load(dir, AgentConfig.load(dir).deviceId());
        VerifyReport report =
            new LogVerifier(id, NoteVerifier.parse(identity.signer().verifierKey())).verify(store);
        if (!report.ok()) {
          badLogs.add(id + ": " + report.problem());
        }
        roots.put(id, report.rootHex());
        Set<String> acked = readAcked(dir.resolve(ChaosAgent.ACKED_LOG));
        ackedTotal += acked.size();
        for (String k : acked) {
          if (!keys.contains(k)) {
            lostAcks.add(id + " " + k);
          }
        }
      }
    }
    long capturedTotal = captured.values().stream().mapToLong(Set::size).sum();
    totals.put("acked keys (agents' acked.log)", ackedTotal);
    totals.put("captured records (agents' stores)", capturedTotal);
    checks.add(
        new Check(
            "every acknowledged capture is in its agent's store",
            lostAcks.isEmpty(),
            lostAcks.isEmpty() ? ackedTotal + " acked keys found" : "missing: " + first(lostAcks)));
    checks.add(
        new Check(
            "every agent synced to the end",
            unsynced.isEmpty(),
            unsynced.isEmpty() ? "all " + agentDirs.size() + " logs synced" : first(unsynced)));
    checks.add(
        new Check(
            "every agent log passes verify",
            badLogs.isEmpty(),
            badLogs.isEmpty() ? "signatures and roots recomputed" : first(badLogs)));

    Map<String, List<RoomMessage>> byRoom = readRooms();
    Map<String, Integer> keyCount = new HashMap<>();
    Map<String, Set<String>> storedByDevice = new HashMap<>();
    List<String> numbering = new ArrayList<>();
    long storedTotal = 0;
    long tombstones = 0;
    for (Map.Entry<String, List<RoomMessage>> e : byRoom.entrySet()) {
      TreeSet<Long> seqs = new TreeSet<>();
      for (RoomMessage m : e.getValue()) {
        if (!seqs.add(m.seq())) {
          numbering.add(e.getKey() + " seq " + m.seq() + " twice");
        }
        if ("TOMBSTONE".equals(m.status())) {
          tombstones++;
          continue;
        }
        storedTotal++;
        keyCount.merge(m.idempotencyKey(), 1, Integer::sum);
        storedByDevice.computeIfAbsent(m.deviceId(), d -> new HashSet<>()).add(m.idempotencyKey());
      }
      if (!seqs.isEmpty() && (seqs.first() != 1 || seqs.last() != seqs.size())) {
        numbering.add(
            e.getKey()
                + ": "
                + seqs.size()
                + " numbers between "
                + seqs.first()
                + " and "
                + seqs.last());
      }
    }
    long duplicates = keyCount.values().stream().filter(n -> n > 1).count();
    totals.put("stored messages (server rooms)", storedTotal);
    totals.put("tombstones (numbers burned, accounted for)", tombstones);
    totals.put("duplicates stored", duplicates);
    List<String> mismatch = new ArrayList<>();
    for (String id : deviceIds) {
      Set<String> want = captured.get(id);
      Set<String> got = storedByDevice.getOrDefault(id, Set.of());
      if (!want.equals(got)) {
        Set<String> missing = new HashSet<>(want);
        missing.removeAll(got);
        Set<String> extra = new HashSet<>(got);
        extra.removeAll(want);
        mismatch.add(
            id + ": " + missing.size() + " captured but not stored, " + extra.size() + " extra");
      }
    }
    checks.add(
        new Check(
            "captured-and-acknowledged on agents == stored on the server",
            mismatch.isEmpty() && capturedTotal == storedTotal,
            mismatch.isEmpty()
                ? capturedTotal + " captured, " + storedTotal + " stored"
                : first(mismatch)));
    checks.add(
        new Check(
            "duplicates stored == 0", duplicates == 0, duplicates + " keys stored more than once"));
    checks.add(
        new Check(
            "per-room numbering complete (1..max, each number once)",
            numbering.isEmpty(),
            numbering.isEmpty() ? byRoom.size() + " rooms" : first(numbering)));
    checks.add(rootsCheck(roots, sizes));
    return new Summary(faultsByName(), skipped, checks, totals);
  }

  /**
   * Syncs a stopped agent's store to the end with the agent's own sync client, directly to the
   * server; returns null when complete, else why not.
   */
  private String finalSync(Path dir, EdgeStore store) throws Exception {
    DeviceIdentity identity = DeviceIdentity.load(dir, AgentConfig.load(dir).deviceId());
    ServerLink link =
        ServerLink.load(dir).orElseThrow(() -> new IOException(dir + " was never enrolled"));
    OkHttpClient http = ChaosAgent.http();
    Syncer syncer =
        new Syncer(
            store,
            identity,
            new SyncClient(http, "http://127.0.0.1:" + serverPort, Clock.systemUTC()),
            link.serverVerifier(),
            ChaosAgent.SYNC,
            new Backoff(
                ChaosAgent.SYNC.backoffBase(), ChaosAgent.SYNC.backoffCap(), random::nextDouble),
            Sleeper.real(),
            Clock.systemUTC(),
            () -> null);
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

  private Check rootsCheck(Map<String, String> roots, Map<String, Long> sizes) throws Exception {
    List<String> bad = new ArrayList<>();
    Random pick = new Random(options.seed());
    int proofs = 0;
    for (String id : deviceIds) {
      LedgerClient.Reply<LogState> log = direct.log(id);
      if (!log.ok()) {
        bad.add(id + ": /log " + log.code());
        continue;
      }
      LogState s = log.body();
      long size = sizes.get(id);
      if (s.verifiedSize() != size
          || (size > 0 && !String.valueOf(roots.get(id)).equals(s.rootHex()))
          || "QUARANTINED".equals(s.status())) {
        bad.add(
            id
                + ": server "
                + s.verifiedSize()
                + " "
                + s.rootHex()
                + " "
                + s.status()
                + ", agent "
                + size
                + " "
                + roots.get(id));
        continue;
      }
      for (int i = 0; i < 5 && size > 0; i++) {
        long index = (long) (pick.nextDouble() * size);
        LedgerClient.Reply<InclusionProofResponse> p = direct.inclusion(id, index);
        if (!p.ok()) {
          bad.add(id + ": proof " + index + " " + p.code());
          break;
        }
        InclusionProof.verify(
            index,
            p.body().size(),
            HEX.parseHex(p.body().leafHashHex()),
            p.body().proofHex().stream().map(HEX::parseHex).toList(),
            HEX.parseHex(roots.get(id)));
        proofs++;
      }
    }
    return new Check(
        "every device root verified (server root == agent root, inclusion proofs)",
        bad.isEmpty(),
        bad.isEmpty()
            ? deviceIds.size() + " devices, " + proofs + " inclusion proofs verified"
            : first(bad));
  }

  private Map<String, List<RoomMessage>> readRooms() throws IOException, InterruptedException {
    Map<String, List<RoomMessage>> out = new LinkedHashMap<>();
    for (String room : rooms) {
      List<RoomMessage> all = new ArrayList<>();
      long after = 0;
      while (true) {
        LedgerClient.Reply<RoomPage> page = direct.room(room, after, 1000);
        if (!page.ok()) {
          throw new IOException("room " + room + ": " + page.code());
        }
        if (page.body().messages().isEmpty()) {
          break;
        }
        all.addAll(page.body().messages());
        after = page.body().messages().get(page.body().messages().size() - 1).seq();
      }
      out.put(room, all);
    }
    return out;
  }

  private static Set<String> readAcked(Path file) throws IOException {
    Set<String> out = new HashSet<>();
    if (!Files.exists(file)) {
      return out;
    }
    String text = Files.readString(file, StandardCharsets.US_ASCII);
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return out;
    }
    for (String line : text.substring(0, end).split("\n")) {
      if (!line.isBlank()) {
        out.add(line.strip());
      }
    }
    return out;
  }

  private Map<String, Long> faultsByName() {
    Map<String, Long> out = new LinkedHashMap<>();
    injected.forEach((k, v) -> out.put(k.label, v));
    return out;
  }

  private static String first(List<String> problems) {
    return problems.get(0) + (problems.size() > 1 ? " (+" + (problems.size() - 1) + " more)" : "");
  }

  // ---- plumbing -----------------------------------------------------------------------------

  private void waitReady(Duration timeout) throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (direct.ready()) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (!server.alive()) {
        throw new IOException("sync-server exited during start; see " + root.resolve("server.log"));
      }
      Thread.sleep(200);
    }
    throw new IOException("sync-server not ready after " + timeout);
  }

  private static void waitForPort(int port, Duration timeout, String what)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        new java.net.Socket("127.0.0.1", port).close();
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new IOException(what + " did not listen on " + port + " within " + timeout);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private List<String> javaCommand(String heap) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return List.of(
        java, "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath);
  }

  private void stopAll() {
    for (Child c : agents) {
      quietly(() -> c.kill());
    }
    if (server != null) {
      quietly(() -> server.signal(false));
      quietly(() -> server.stop(20));
    }
    if (proxy != null) {
      quietly(() -> proxy.close());
    }
    if (redis != null) {
      quietly(() -> redis.kill());
    }
    if (mariadb != null) {
      quietly(() -> mariadb.process().stop(30));
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private void quietly(Step s) {
    try {
      s.run();
    } catch (Exception e) {
      log.println("chaos: cleanup: " + e);
    }
  }
}
