package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.EdgeAgent;
import dev.danmakuledger.edge.retention.PruneReport;
import dev.danmakuledger.edge.retention.Pruner;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code edge-agent prune}: retention pruning (docs/edge-agent.md "Retention and pruning"). */
@Command(
    name = "prune",
    mixinStandardHelpOptions = true,
    description = {
      "Drop the canonical bytes of records captured longer ago than the retention, once a stored"
          + " server receipt covers them and their outcome is final.",
      "Index, key, content hash, leaf hash and outcome stay: dedupe, verify and the Merkle root"
          + " keep working. Then compact the store. Takes the data directory lock."
    })
final class PruneCommand implements Callable<Integer>, EdgeAgentMain.ClockAware {
  @Spec CommandSpec spec;
  @Mixin DataDirOption dir;

  @Option(
      names = "--older-than",
      paramLabel = "DURATION",
      description = "Retention for this run, ISO-8601, > 0 (default: the one set at init).")
  Duration olderThan;

  private Clock clock;

  @Override
  public void clock(Clock clock) {
    this.clock = clock;
  }

  @Override
  public Integer call() throws Exception {
    if (olderThan != null && (olderThan.isNegative() || olderThan.isZero())) {
      throw new IllegalArgumentException(
          "--older-than: got " + olderThan + ", want a positive duration");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (EdgeAgent agent = EdgeAgent.open(dir.dataDir, clock)) {
      Duration retention = olderThan != null ? olderThan : agent.config().retention();
      if (retention.isZero()) {
        out.println("retention is PT0S (keep forever) and no --older-than given: nothing pruned");
        return ExitCodes.OK;
      }
      long before = agent.store().sizeOnDiskBytes();
      PruneReport report = new Pruner(agent.store(), clock).prune(retention);
      if (report.pruned() > 0) {
        agent.store().compact();
      }
      long after = agent.store().sizeOnDiskBytes();
      out.printf(
          "pruned %d records captured before %s (receipt covers %d); %d pruned in total;"
              + " store %d -> %d bytes%n",
          report.pruned(),
          Instant.ofEpochMilli(report.capturedBefore()),
          report.coveredSize(),
          report.prunedTotal(),
          before,
          after);
    }
    return ExitCodes.OK;
  }
}
