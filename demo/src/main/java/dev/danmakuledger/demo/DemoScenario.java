package dev.danmakuledger.demo;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.edge.capture.DedupeStats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One run of the demo (docs/demo.md): the {@link DemoStory} told on a {@link DemoCluster}, checked
 * by {@link DemoVerifier} and {@link CloneVerifier}, printed by {@link DemoReport}. The cluster
 * stays up after {@link #run()} (for the console) until {@link #close()}.
 */
public final class DemoScenario implements AutoCloseable {
  private final DemoCluster cluster;
  private final PrintStream out;
  private final Duration offline;

  /**
   * @param work the data directory of the server and the agents (empty)
   * @param out where the steps and the report go
   * @param clock the clock of the agents and the legacy device
   * @param offline how long the offline agent stays offline after the others synced
   */
  public DemoScenario(Path work, PrintStream out, Clock clock, Duration offline) {
    this.cluster = new DemoCluster(work, clock);
    this.out = out;
    this.offline = offline;
  }

  /** The base URL of the running server (valid after {@link #run()}). */
  public String serverUrl() {
    return cluster.url();
  }

  /** The admin token file of the running server. */
  public Path adminTokenFile() {
    return cluster.adminTokenFile();
  }

  /** Runs the story and the checks, prints the report; returns the checks. */
  public Checks run() throws Exception {
    long started = System.nanoTime();
    DemoStory story = new DemoStory(cluster, out, offline);
    Injected injected = story.tell();
    Verification verification = DemoVerifier.verify(cluster, injected);
    Checks.Check clone = CloneVerifier.verify(cluster.reader(), story.cloneOffline());
    story.step("Cloned %s's data directory: %s", DemoPlan.OFFLINE, clone.detail());
    List<DedupeStats> stats = new ArrayList<>();
    for (EdgeNode n : cluster.agents()) {
      stats.add(n.capture().stats());
    }
    DemoReport report =
        new DemoReport(
            injected,
            verification,
            clone,
            stats,
            cluster.legacy().size(),
            Duration.ofNanos(System.nanoTime() - started));
    report.print(out);
    return report.checks();
  }

  /** Stops the agents, the server and Redis; safe to call twice and from a shutdown hook. */
  @Override
  public void close() throws IOException {
    cluster.close();
  }
}
