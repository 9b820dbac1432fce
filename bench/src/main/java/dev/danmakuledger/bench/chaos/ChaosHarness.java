package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.FreshDatabase;
import dev.danmakuledger.server.kafka.TopicCheck;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * {@code bin/bench chaos} (docs/benchmarks.md): exactly-once under faults. Several edge agents
 * (child processes) capture and sync continuously through a {@link FaultProxy} that balances them
 * over the sync servers (child processes: two or more when they share a MariaDB, one on the
 * embedded H2), or forwards to an HAProxy that does ({@link HaproxyBalancer}), backed by a Redis
 * primary and replica ({@link RedisNodes}) or a Redis Cluster ({@link RedisClusterNodes}) the
 * harness owns and by MariaDB (a fresh database on the given server, or one the harness owns) or
 * the server's embedded H2; room-stream subscribers ({@link StreamSubscriber}) follow every room on
 * every server; with {@code --kafka} the servers relay to three Kafka brokers the harness owns
 * ({@link ChaosKafka}). For a bounded time the harness injects, at random moments, the faults of
 * {@link FaultKind} (in shuffled rounds, so a short run still meets each kind; the proxy drops
 * connections and loses responses at random throughout; the first round always completes, even past
 * the duration); then it stops the faults and the agents, syncs every agent's store to the end,
 * waits out the gap sealer and checks what was acknowledged against what was stored ({@link
 * ChaosVerdict}) and, with Kafka, the topic against the CONFIRMED rows ({@link KafkaVerdict}).
 */
public final class ChaosHarness {

  /** How the agents reach the sync servers. */
  public enum Balancer {
    /** The fault proxy itself spreads connections over the servers at random. */
    PROXY,
    /**
     * A real HAProxy the harness owns (round robin, health checks, docs/operations.md) behind the
     * fault proxy; a hedged request still goes to two servers directly.
     */
    HAPROXY
  }

  /**
   * The shape of the deployment under test.
   *
   * @param servers sync servers, 1..8; 0 for the default: 2 on a shared MariaDB, 1 on the embedded
   *     H2 (which lives inside its one server)
   * @param balancer what balances the agents over the servers
   * @param redisCluster a 3-master Redis Cluster with one replica each instead of a primary and a
   *     replica
   * @param kafka the servers relay to three Kafka brokers the harness owns (docs/kafka.md, "Chaos
   *     run"); needs a MariaDB the servers share, which the verdict reads beside the topic
   */
  public record Topology(int servers, Balancer balancer, boolean redisCluster, boolean kafka) {
    public Topology {
      if (servers < 0 || servers > 8) {
        throw new IllegalArgumentException("servers: got " + servers + ", want 1..8");
      }
      if (balancer == null) {
        throw new IllegalArgumentException("balancer: got none, want proxy or haproxy");
      }
    }

    /** Without the Kafka relay. */
    public Topology(int servers, Balancer balancer, boolean redisCluster) {
      this(servers, balancer, redisCluster, false);
    }

    /** Two servers behind the fault proxy on a MariaDB, one on H2; a Redis primary and replica. */
    public static Topology defaults() {
      return new Topology(0, Balancer.PROXY, false);
    }
  }

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
   * @param without faults left out of the run, by {@link #faultNames() name}; a fault the set-up
   *     cannot inject must be left out explicitly, so that no run passes without saying so (the
   *     faults of the other Redis topology excepted: each topology has its own failover)
   * @param gapSealAfter the servers' {@code --gap-seal-after}: the age after which a numbering hole
   *     must be a tombstone, 1 s..10 min
   * @param topology servers, balancer and Redis topology
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
      double loseRate,
      Set<String> without,
      Duration gapSealAfter,
      Topology topology) {
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
      if (gapSealAfter == null
          || gapSealAfter.compareTo(Duration.ofSeconds(1)) < 0
          || gapSealAfter.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException(
            "gap-seal-after: got " + gapSealAfter + ", want 1s..10m");
      }
      boolean mariadb = ownMariaDb || jdbcUrl != null;
      topology = topology == null ? Topology.defaults() : topology;
      if (topology.servers() == 0) {
        topology =
            new Topology(
                mariadb ? 2 : 1, topology.balancer(), topology.redisCluster(), topology.kafka());
      }
      if (topology.kafka() && !mariadb) {
        throw new IllegalArgumentException(
            "kafka: got the embedded H2, want a MariaDB the servers share (--own-mariadb or"
                + " --jdbc): the verdict reads the CONFIRMED rows beside the topic");
      }
      if (topology.servers() > 1 && !mariadb) {
        throw new IllegalArgumentException(
            "servers: got "
                + topology.servers()
                + " on the embedded H2, which lives inside one server; want 1, or a shared"
                + " MariaDB (--own-mariadb or --jdbc)");
      }
      without = Set.copyOf(without == null ? Set.of() : without);
      for (String name : without) {
        kind(name);
      }
      FaultKind.Setup setup = setup(mariadb, ownMariaDb, topology);
      for (FaultKind k : FaultKind.values()) {
        String why = k.whyNot(setup);
        if (why != null && !k.ofChosenPart() && !without.contains(name(k))) {
          throw new IllegalArgumentException(
              "fault "
                  + name(k)
                  + " ("
                  + k.label
                  + "): cannot be injected with this set-up, it "
                  + why
                  + "; got neither, want that or --without "
                  + name(k));
        }
      }
    }

    /** The options with the default topology (two servers on a MariaDB, one on H2). */
    public Options(
        Duration duration,
        int agents,
        int rooms,
        double ratePerAgent,
        long seed,
        String jdbcUrl,
        boolean ownMariaDb,
        double dropRate,
        double loseRate,
        Set<String> without,
        Duration gapSealAfter) {
      this(
          duration,
          agents,
          rooms,
          ratePerAgent,
          seed,
          jdbcUrl,
          ownMariaDb,
          dropRate,
          loseRate,
          without,
          gapSealAfter,
          Topology.defaults());
    }

    /** True when the servers share a MariaDB. */
    boolean mariadb() {
      return ownMariaDb || jdbcUrl != null;
    }

    FaultKind.Setup setup() {
      return setup(mariadb(), ownMariaDb, topology);
    }

    private static FaultKind.Setup setup(boolean mariadb, boolean owned, Topology t) {
      return new FaultKind.Setup(mariadb, owned, t.servers(), t.redisCluster(), t.kafka());
    }
  }

  /** True when an haproxy executable is installed ({@link Balancer#HAPROXY} can run). */
  public static boolean haproxyInstalled() {
    return HaproxyBalancer.executable().isPresent();
  }

  /** The names {@code --without} takes, one per fault. */
  public static List<String> faultNames() {
    List<String> out = new ArrayList<>();
    for (FaultKind k : FaultKind.values()) {
      out.add(name(k));
    }
    return out;
  }

  static String name(FaultKind k) {
    return k.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static FaultKind kind(String name) {
    for (FaultKind k : FaultKind.values()) {
      if (name(k).equals(name)) {
        return k;
      }
    }
    throw new IllegalArgumentException(
        "fault: got " + name + ", want one of " + String.join(", ", faultNames()));
  }

  /**
   * The outcome: faults injected (by label), faults left out (with why), the checks and their
   * verdicts, and the totals.
   */
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
  private final PrintStream log;
  private final String runId;
  private final Random random;
  private final ChaosProcesses processes;
  private final Map<String, String> skipped = new LinkedHashMap<>();
  private final List<String> rooms = new ArrayList<>();

  private ChaosHarness(Options options, PrintStream log, ChaosProcesses processes) {
    this.options = options;
    this.log = log;
    this.processes = processes;
    this.runId = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    this.random = new Random(options.seed());
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
    try (ChaosProcesses processes = new ChaosProcesses(root, classpath, log)) {
      ChaosHarness h = new ChaosHarness(options, log, processes);
      String url = options.jdbcUrl();
      if (options.ownMariaDb()) {
        url = processes.startMariaDb();
      }
      try (FreshDatabase db = FreshDatabase.create(url, root.resolve("server"))) {
        return h.runWith(db);
      }
    }
  }

  private Summary runWith(FreshDatabase db) throws Exception {
    Topology topology = options.topology();
    if (topology.redisCluster()) {
      processes.startRedisCluster();
    } else {
      processes.startRedis();
    }
    if (topology.kafka()) {
      processes.startKafka(options.seed());
    }
    processes.startServers(db, topology.servers(), options.gapSealAfter());
    processes.startProxy(
        options.dropRate(),
        options.loseRate(),
        options.seed(),
        topology.balancer() == Balancer.HAPROXY);
    for (int r = 0; r < options.rooms(); r++) {
      rooms.add("chaos-" + runId + "-r" + r);
    }
    processes.startSubscribers(rooms);
    for (int a = 0; a < options.agents(); a++) {
      processes.startAgent(
          "chaos-" + runId + "-a" + a, rooms, options.ratePerAgent(), options.seed() + a);
    }
    RepeatingDevice repeating =
        new RepeatingDevice(
            "chaos-" + runId + "-raw",
            rooms,
            processes.proxyUrl(),
            processes.enrollToken(),
            options.seed());
    repeating.start();
    Set<FaultKind> scheduled = EnumSet.noneOf(FaultKind.class);
    for (FaultKind k : FaultKind.values()) {
      String why = k.whyNot(options.setup());
      if (options.without().contains(name(k))) {
        skipped.put(k.label, "--without " + name(k) + (why == null ? "" : ": it " + why));
      } else if (why != null && k.ofChosenPart()) {
        skipped.put(k.label, "not of this set-up: it " + why);
      } else if (!k.random()) {
        scheduled.add(k);
      }
    }
    log.printf(
        Locale.ROOT,
        "chaos: %d agents at %.0f captures/s and a device without edge dedupe, %d rooms, %d sync"
            + " server(s) on %s%s, %s, %s; %d stream subscribers; gap sealer after %ds%s; injecting"
            + " faults for %s%n",
        options.agents(),
        options.ratePerAgent(),
        options.rooms(),
        processes.servers().size(),
        db.describe(),
        options.ownMariaDb() ? " (harness-owned mariadbd)" : "",
        processes.describeRedis(),
        processes.balancer() == null
            ? "fault proxy :" + processes.proxy().port() + " balancing"
            : "fault proxy :"
                + processes.proxy().port()
                + " -> haproxy :"
                + processes.balancer().port(),
        processes.subscribers().size(),
        options.gapSealAfter().toSeconds(),
        processes.kafka() == null ? "" : "; Kafka relay to " + processes.kafka().describe(),
        options.duration());
    FaultInjector faults =
        new FaultInjector(
            processes,
            random,
            log,
            scheduled,
            rooms,
            "chaos-" + runId + "-c",
            db.embedded() ? null : db.url());
    faults.run(options.duration());
    log.println("chaos: faults stopped; stopping agents and syncing every store to the end");
    ChaosVerdict.Verdict verdict =
        new ChaosVerdict(processes, rooms, random, options.seed(), options.gapSealAfter())
            .judge(repeating);
    List<Check> checks = new ArrayList<>(verdict.checks());
    Map<String, Long> totals = new LinkedHashMap<>(verdict.totals());
    if (processes.kafka() != null) {
      TopicCheck.Report topic = KafkaVerdict.settle(processes.kafka(), db, log);
      checks.add(KafkaVerdict.check(topic));
      totals.put("records in the Kafka topic (read_committed)", topic.records());
    }
    checks.add(coverage(faults.injected()));
    totals.putAll(faults.measures());
    Map<String, Long> byLabel = new LinkedHashMap<>();
    faults.injected().forEach((k, v) -> byLabel.put(k.label, v));
    return new Summary(byLabel, skipped, checks, totals);
  }

  /** Every fault not left out was injected at least once: none passes silently. */
  private Check coverage(Map<FaultKind, Long> injected) {
    List<String> never = new ArrayList<>();
    for (Map.Entry<FaultKind, Long> e : injected.entrySet()) {
      FaultKind k = e.getKey();
      boolean off =
          options.without().contains(name(k))
              || (k.ofChosenPart() && k.whyNot(options.setup()) != null)
              || (k == FaultKind.PROXY_DROPPED_CONNECTION && options.dropRate() == 0)
              || (k == FaultKind.PROXY_LOST_RESPONSE && options.loseRate() == 0);
      if (!off && e.getValue() == 0) {
        never.add(name(k));
      }
    }
    return new Check(
        "every fault not left out was injected at least once",
        never.isEmpty(),
        never.isEmpty()
            ? (injected.size() - skipped.size()) + " kinds injected"
            : "never injected: " + String.join(", ", never));
  }
}
