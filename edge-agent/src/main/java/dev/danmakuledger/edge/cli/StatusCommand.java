package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.capture.AgentStatus;
import dev.danmakuledger.edge.capture.DedupeStats;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.QueueState;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code edge-agent status}: reads the store (also while another agent owns it). */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Show log size, root, last checkpoint, outcomes, store size, Bloom statistics and the"
            + " upload queue (oldest unsynced capture, last sync attempt, next retry)"
            + " (read-only; works while `run` owns the directory).")
final class StatusCommand implements Callable<Integer>, EdgeAgentMain.ClockAware {
  @Spec CommandSpec spec;
  @Mixin DataDirOption dir;

  @Option(names = "--json", description = "Print the status as JSON.")
  boolean json;

  @Option(
      names = "--records",
      description =
          "List every record instead: index, server outcome, room sequence number, message id,"
              + " idempotency key and reason (outcome UNSYNCED until the server has answered).")
  boolean records;

  /** One line of {@code status --records}. */
  record RecordLine(
      long index,
      String outcome,
      Long seq,
      String messageId,
      String idempotencyKey,
      String reason) {}

  private Clock clock = Clock.systemUTC();

  @Override
  public void clock(Clock clock) {
    this.clock = clock;
  }

  @Override
  public Integer call() throws Exception {
    AgentConfig config = AgentConfig.load(dir.dataDir);
    PrintWriter out = spec.commandLine().getOut();
    if (records) {
      return listRecords(out);
    }
    AgentStatus s;
    try (EdgeStore store = EdgeStore.openReadOnly(EdgeStore.fileIn(dir.dataDir))) {
      s = AgentStatus.fromStore(store, config);
    }
    if (json) {
      out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(s));
      return ExitCodes.OK;
    }
    DedupeStats d = s.dedupe();
    out.printf("device:      %s (%s)%n", s.deviceId(), s.origin());
    out.printf("log size:    %d%n", s.logSize());
    out.printf("root:        %s%n", s.rootHex());
    out.printf(
        "checkpoint:  %s%n",
        s.checkpointAt() == null ? "none" : "signed at " + Instant.ofEpochMilli(s.checkpointAt()));
    out.printf("receipt:     %s%n", s.receiptSize() == null ? "none" : "covers " + s.receiptSize());
    out.printf("outcomes:    %s%n", s.outcomes().isEmpty() ? "none" : s.outcomes());
    out.printf("store:       %d of %d bytes%n", s.storeBytes(), s.maxStoreBytes());
    out.printf(
        "bloom:       %d checks, %d maybe, %d false positives, measured FPR %s (configured %s),"
            + " %d bytes, %d rotations%n",
        d.checks(),
        d.maybes(),
        d.falsePositives(),
        String.format(Locale.ROOT, "%.6f", d.measuredFpr()),
        d.configuredFpr(),
        d.memoryBytes(),
        d.rotations());
    out.printf(
        "duplicates:  %d, conflicts: %d (%d keys flagged by Bloom, %d older than its window)%n",
        d.duplicates(), d.conflicts(), d.bloomHits(), d.bloomMisses());
    QueueState q = s.sync();
    long now = clock.millis();
    out.printf(
        "unsynced:    %s%n",
        q.oldestUnsyncedAt() == null
            ? "none"
            : "oldest captured " + ago(now, q.oldestUnsyncedAt()) + " ago");
    SyncAttempt a = q.lastAttempt();
    out.printf(
        "last sync:   %s%n",
        a == null ? "never" : a.outcome() + ", " + ago(now, a.atMillis()) + " ago");
    out.printf(
        "next retry:  %s%n",
        q.nextRetryAt() == null
            ? "none scheduled"
            : q.nextRetryAt() >= now
                ? "in " + ago(q.nextRetryAt(), now)
                : "overdue by " + ago(now, q.nextRetryAt()) + " (is the agent running?)");
    return ExitCodes.OK;
  }

  /** How long from {@code then} to {@code now}, rounded down to seconds ("0s" if not later). */
  static String ago(long now, long then) {
    Duration d = Duration.ofSeconds(Math.max(0, now - then) / 1000);
    return d.toString().substring(2).toLowerCase(Locale.ROOT);
  }

  private int listRecords(PrintWriter out) throws Exception {
    List<RecordLine> lines = new ArrayList<>();
    try (EdgeStore store = EdgeStore.openReadOnly(EdgeStore.fileIn(dir.dataDir))) {
      store.forEachRecord(
          r -> {
            lines.add(
                new RecordLine(
                    r.index(),
                    r.outcome() == null ? "UNSYNCED" : r.outcome(),
                    r.seq(),
                    r.messageId(),
                    r.idempotencyKey(),
                    r.outcomeReason()));
            return true;
          });
    }
    if (json) {
      out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(lines));
      return ExitCodes.OK;
    }
    out.printf("%-8s %-10s %-8s %-20s %s%n", "index", "outcome", "seq", "message id", "key");
    for (RecordLine l : lines) {
      out.printf(
          "%-8d %-10s %-8s %-20s %s%s%n",
          l.index(),
          l.outcome(),
          l.seq() == null ? "-" : l.seq(),
          l.messageId() == null ? "-" : l.messageId(),
          l.idempotencyKey(),
          l.reason() == null ? "" : "  (" + l.reason() + ")");
    }
    return ExitCodes.OK;
  }
}
