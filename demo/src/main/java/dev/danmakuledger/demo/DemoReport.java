package dev.danmakuledger.demo;

import static dev.danmakuledger.demo.DemoPlan.LEGACY_CONFLICTS;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_REDIS_REPEATS;
import static dev.danmakuledger.demo.DemoPlan.LEGACY_SQL_REPEATS;
import static dev.danmakuledger.demo.DemoPlan.LOSSY;

import dev.danmakuledger.edge.capture.DedupeStats;
import dev.danmakuledger.protocol.wire.admin.Overview;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The verification report {@code bin/demo} prints (docs/demo.md, "A run"): the figures of the run,
 * then every check with its evidence, then the tally. It prints; it decides nothing.
 *
 * @param injected what the story injected
 * @param verification the checks and the figures read while they ran
 * @param cloneCheck the clone check (its detail is the "forks" line)
 * @param edgeStats each agent's dedupe counters at the end of the run
 * @param legacyRecords records in the legacy device's log
 * @param took how long the whole run took
 */
record DemoReport(
    Injected injected,
    Verification verification,
    Checks.Check cloneCheck,
    List<DedupeStats> edgeStats,
    long legacyRecords,
    Duration took) {
  DemoReport {
    edgeStats = List.copyOf(edgeStats);
  }

  /** Every check of the run, the clone last, in the order the report prints them. */
  Checks checks() {
    List<Checks.Check> all = new ArrayList<>(verification.checks());
    all.add(cloneCheck);
    return new Checks(all);
  }

  void print(PrintStream out) {
    Overview overview = verification.overview();
    Map<String, Long> captured = verification.capturedOnAgents();
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
        captured.values().stream().mapToLong(Long::longValue).sum(),
        captured,
        legacyRecords,
        injected.legacyFirst().size(),
        injected.fileEntries());
    out.printf(
        Locale.ROOT,
        "stored        %d messages (server outcomes %s)%n",
        stored,
        overview.outcomes());
    out.printf(
        Locale.ROOT,
        "duplicates    edge (Bloom + exact) %d | Redis %d | SQL guard %d   (injected %d at the"
            + " edge, %d + %d conflicting via the legacy box before the wipe, %d after it)%n",
        overview.duplicates().edge(),
        overview.duplicates().redis(),
        overview.duplicates().sql(),
        injected.edgeRepeatsTotal(),
        LEGACY_REDIS_REPEATS,
        LEGACY_CONFLICTS,
        LEGACY_SQL_REPEATS);
    printEdgeDedupe(out);
    out.printf(
        Locale.ROOT,
        "conflicts     %d at the server, %d refused at the edges%n",
        overview.conflicts(),
        injected.editedResendsRefusedTotal());
    out.printf(
        Locale.ROOT,
        "lost replies  %d of %d batch replies to %s dropped; resent, nothing stored twice%n",
        injected.lostReplies(),
        injected.proxiedBatches(),
        LOSSY);
    for (Map.Entry<String, String> e : verification.roomLines().entrySet()) {
      out.printf(Locale.ROOT, "room %-8s %s%n", e.getKey(), e.getValue());
    }
    for (Map.Entry<String, String> e : verification.rootLines().entrySet()) {
      out.printf(Locale.ROOT, "device %-8s verified by the server: %s%n", e.getKey(), e.getValue());
    }
    out.printf(Locale.ROOT, "forks         %s%n", cloneCheck.detail());
    out.println();
    Checks checks = checks();
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

  private void printEdgeDedupe(PrintStream out) {
    long bloomChecks = 0;
    long maybes = 0;
    long bloomConfirmed = 0;
    long sameCommit = 0;
    long falsePositives = 0;
    for (DedupeStats d : edgeStats) {
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
  }
}
