package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.chaos.ChaosHarness;
import dev.danmakuledger.bench.report.BenchResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
          + " proxy to a sync server (child process) while the harness SIGKILLs the server and"
          + " agents, restarts Redis empty, pauses the server and drops connections and responses."
          + " Then it checks acknowledged == stored, no duplicates, complete room numbering and"
          + " every device root.",
      "Exits 1 on any violation."
    })
final class ChaosCommand implements Callable<Integer> {
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
      names = "--work-dir",
      paramLabel = "DIR",
      description = "where agents, server and logs live (default: a new temp directory, kept)")
  Path workDir;

  @Override
  public Integer call() throws Exception {
    ChaosHarness.Options o;
    try {
      o =
          new ChaosHarness.Options(
              duration, agents, rooms, rate, seed, jdbc, ownMariaDb, drop, lose);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    Path dir = workDir != null ? workDir : Files.createTempDirectory("danmaku-chaos-");
    ChaosHarness.Summary s =
        ChaosHarness.run(o, System.out, dir, System.getProperty("java.class.path"));
    System.out.println();
    System.out.println("faults injected:");
    s.faults().forEach((k, v) -> System.out.printf("  %-52s %6d%n", k, v));
    for (Map.Entry<String, String> e : s.skipped().entrySet()) {
      System.out.printf("  %-52s %6s  (%s)%n", e.getKey(), "skip", e.getValue());
    }
    System.out.println("totals:");
    s.totals().forEach((k, v) -> System.out.printf("  %-52s %6d%n", k, v));
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
