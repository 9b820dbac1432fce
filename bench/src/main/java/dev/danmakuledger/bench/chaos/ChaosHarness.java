package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.FreshDatabase;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * {@code bin/bench chaos} (docs/benchmarks.md): exactly-once under faults. Several edge agents
 * (child processes) capture and sync continuously through a {@link FaultProxy} to a sync server (a
 * child process) backed by a Redis the harness owns and by MariaDB (a fresh database on the given
 * server) or the server's embedded H2. For a bounded time the harness injects, at random moments,
 * the faults of {@link FaultKind} (in shuffled rounds, so a short run still meets each kind; the
 * proxy drops connections and loses responses at random throughout; the first round always
 * completes, even past the duration); then it stops the faults and the agents, syncs every agent's
 * store to the end, and checks what was acknowledged against what was stored.
 */
public final class ChaosHarness {

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
    processes.startRedis();
    processes.startServer(db);
    processes.startProxy(options.dropRate(), options.loseRate(), options.seed());
    for (int r = 0; r < options.rooms(); r++) {
      rooms.add("chaos-" + runId + "-r" + r);
    }
    for (int a = 0; a < options.agents(); a++) {
      processes.startAgent(
          "chaos-" + runId + "-a" + a, rooms, options.ratePerAgent(), options.seed() + a);
    }
    boolean ownsMariaDb = processes.mariadb() != null;
    if (!ownsMariaDb) {
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
        ownsMariaDb ? " (harness-owned mariadbd)" : "",
        processes.redisPort(),
        "proxy :" + processes.proxy().port(),
        options.duration());
    FaultInjector faults = new FaultInjector(processes, random, log);
    faults.run(options.duration());
    log.println("chaos: faults stopped; stopping agents and syncing every store to the end");
    ChaosVerdict.Verdict verdict =
        new ChaosVerdict(processes, rooms, random, options.seed()).judge();
    return new Summary(faults.byName(), skipped, verdict.checks(), verdict.totals());
  }
}
