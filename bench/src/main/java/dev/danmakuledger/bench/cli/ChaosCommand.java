package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.chaos.ChaosHarness;
import dev.danmakuledger.bench.report.BenchResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench chaos}: see {@link ChaosHarness}. */
@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    description = {
      "Exactly-once under faults: agents capture and sync continuously through a fault-injecting"
          + " proxy (itself the load balancer, or in front of a real HAProxy) to sync servers"
          + " (child processes; two or more on a shared MariaDB) on a Redis primary and replica or"
          + " a Redis Cluster, with room-stream subscribers on every server, while the harness"
          + " SIGKILLs servers (with subscribers attached, too) and agents, restarts Redis empty or"
          + " from an older snapshot, fails over to a lagging replica or kills a cluster master,"
          + " sets room counters back, kills SQL sessions mid-transaction, sends batches to two"
          + " servers at once, clones a device, pauses servers, stalls a subscriber and drops"
          + " connections and responses. Then it checks acknowledged == stored, no duplicates,"
          + " every room numbered 1..max with every hole a tombstone, every device root, every"
          + " DUPLICATE/CONFLICT resolving to a stored message, every clone a fork, no 5xx but the"
          + " 503 outage answer, and every subscriber's stream exactly once, in order, complete.",
      "With --kafka the servers also relay to Kafka brokers the harness kills, restarts and cuts"
          + " off, the relay's instance is killed mid-transaction, and the topic must hold every"
          + " CONFIRMED message exactly once, in cursor order per room.",
      "Exits 1 on any violation. A fault this set-up cannot inject must be left out with"
          + " --without, else the run refuses to start."
    })
final class ChaosCommand implements Callable<Integer> {
  /** The names {@code --without} takes. */
  static final class FaultNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return ChaosHarness.faultNames().iterator();
    }
  }

  @Spec CommandLine.Model.CommandSpec spec;
  @Mixin Output output;

  @Option(
      names = "--duration",
      converter = DurationConverter.class,
      defaultValue = "10m",
      description = "how long faults are injected (default ${DEFAULT-VALUE}; CI uses 2m)")
  Duration duration;

  @Option(names = "--agents", defaultValue = "3", description = "agents (default 3)")
  int agents;

  @Option(names = "--rooms", defaultValue = "4", description = "rooms (default 4)")
  int rooms;

  @Option(
      names = "--rate",
      defaultValue = "20",
      description = "captures per second per agent (default 20)")
  double rate;

  @Option(names = "--seed", defaultValue = "1", description = "fault schedule seed (default 1)")
  long seed;

  @Option(
      names = "--drop",
      defaultValue = "0.03",
      description = "probability a proxied connection is dropped (default 0.03)")
  double drop;

  @Option(
      names = "--lose",
      defaultValue = "0.03",
      description = "probability a proxied response is lost (default 0.03)")
  double lose;

  @Option(
      names = "--jdbc",
      paramLabel = "URL",
      description =
          "MariaDB/MySQL server for the sync server (fresh database, dropped after; not"
              + " restarted); default: the server's embedded H2")
  String jdbc;

  @Option(
      names = "--own-mariadb",
      description =
          "start a MariaDB the harness owns (mariadb-install-db + mariadbd on a free port) and"
              + " restart it as one of the faults")
  boolean ownMariaDb;

  @Option(
      names = "--without",
      split = ",",
      paramLabel = "FAULT",
      description = "leave these faults out (comma-separated): ${COMPLETION-CANDIDATES}",
      completionCandidates = FaultNames.class)
  List<String> without = new ArrayList<>();

  @Option(
      names = "--gap-seal-after",
      converter = DurationConverter.class,
      defaultValue = "5s",
      description =
          "the servers' --gap-seal-after: holes older than this must be tombstones at the end"
              + " (default ${DEFAULT-VALUE})")
  Duration gapSealAfter;

  @Option(
      names = "--servers",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "sync servers, 1..8 (default: 2 on a shared MariaDB, 1 on the embedded H2, which lives"
              + " inside one server)")
  int servers;

  @Option(
      names = "--balancer",
      paramLabel = "KIND",
      defaultValue = "proxy",
      description =
          "what balances the agents over the servers: proxy (the fault proxy itself, at random) or"
              + " haproxy (a real HAProxy the harness configures and owns, behind the fault proxy;"
              + " needs the haproxy package) (default ${DEFAULT-VALUE})")
  String balancer;

  @Option(
      names = "--redis-cluster",
      description =
          "run Redis as a Redis Cluster of 3 masters with a replica each (6 redis-servers the"
              + " harness owns) instead of a primary and a replica; adds the fault"
              + " redis-master-kill (the cluster fails over by itself) in place of"
              + " redis-failover-lagging")
  boolean redisCluster;

  @Option(
      names = "--kafka",
      description =
          "relay to Kafka: three KRaft brokers the harness owns (replication factor 3,"
              + " min.insync.replicas 2), the relay on every server reaching them through proxies;"
              + " adds the faults kafka-broker-sigkill, relay-sigkill-mid-transaction and kafka-cut,"
              + " and the check that the topic holds every CONFIRMED row once, in cursor order per"
              + " room (docs/kafka.md, \"Chaos run\"); needs --own-mariadb or --jdbc")
  boolean kafka;

  @Option(
      names = "--work-dir",
      paramLabel = "DIR",
      description = "where agents, server and logs live (default: a new temp directory, kept)")
  Path workDir;

  @Override
  public Integer call() throws Exception {
    ChaosHarness.Options o;
    try {
      ChaosHarness.Balancer kind =
          switch (balancer) {
            case "proxy" -> ChaosHarness.Balancer.PROXY;
            case "haproxy" -> ChaosHarness.Balancer.HAPROXY;
            default ->
                throw new IllegalArgumentException(
                    "balancer: got " + balancer + ", want proxy or haproxy");
          };
      if (kind == ChaosHarness.Balancer.HAPROXY && !ChaosHarness.haproxyInstalled()) {
        throw new IllegalArgumentException(
            "balancer: got haproxy, but no haproxy executable is installed (PATH, /usr/sbin or"
                + " $DANMAKU_HAPROXY); install it (apt-get install haproxy) or use --balancer"
                + " proxy");
      }
      o =
          new ChaosHarness.Options(
              duration,
              agents,
              rooms,
              rate,
              seed,
              jdbc,
              ownMariaDb,
              drop,
              lose,
              Set.copyOf(without),
              gapSealAfter,
              new ChaosHarness.Topology(servers, kind, redisCluster, kafka));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    Path dir = workDir != null ? workDir : Files.createTempDirectory("danmaku-chaos-");
    ChaosHarness.Summary s =
        ChaosHarness.run(o, System.out, dir, System.getProperty("java.class.path"));
    System.out.println();
    System.out.println("faults injected:");
    s.faults().entrySet().stream()
        .filter(e -> !s.skipped().containsKey(e.getKey()))
        .forEach(e -> System.out.printf("  %-52s %6d%n", e.getKey(), e.getValue()));
    for (Map.Entry<String, String> e : s.skipped().entrySet()) {
      System.out.printf("  %-52s %6s  (%s)%n", e.getKey(), "out", e.getValue());
    }
    System.out.println("totals:");
    s.totals().forEach((k, v) -> System.out.printf("  %-58s %6d%n", k, v));
    System.out.println("checks:");
    List<BenchResult> rows = new ArrayList<>();
    for (ChaosHarness.Check c : s.checks()) {
      System.out.printf("  [%s] %s: %s%n", c.ok() ? " OK " : "FAIL", c.name(), c.detail());
      rows.add(
          new BenchResult(
              "chaos",
              "check",
              c.ok() ? 1.0 : 0.0,
              null,
              null,
              null,
              null,
              c.name() + ": " + c.detail()));
    }
    s.faults()
        .forEach(
            (k, v) ->
                rows.add(
                    new BenchResult("chaos", "faults", (double) v, null, null, null, null, k)));
    s.totals()
        .forEach(
            (k, v) ->
                rows.add(
                    new BenchResult(
                        "chaos", "totals", (double) v, null, null, null, null, k.strip())));
    System.out.println(
        s.passed()
            ? "chaos: PASSED: exactly once under every fault (work dir " + dir + ")"
            : "chaos: VIOLATION (logs in " + dir + ")");
    if (output.json != null) {
      output.emit(System.out, rows);
    }
    return s.passed() ? ExitCodes.OK : ExitCodes.VIOLATION;
  }
}
