package dev.danmakuledger.demo;

import static dev.danmakuledger.demo.DemoPlan.LATE_MESSAGES;
import static dev.danmakuledger.demo.DemoPlan.OFFLINE;

import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.edge.sync.SyncStoppedException;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.protocol.wire.admin.Overview;
import java.io.IOException;
import java.util.Set;

/**
 * The clone check (docs/demo.md, "The checks"; docs/architecture.md §4 on forks): a copy of a
 * device's data directory that captures on its own must be refused as a fork, the device
 * quarantined, and nothing the copy captured stored, while the original's own sync went through.
 */
final class CloneVerifier {
  private CloneVerifier() {}

  static Checks.Check verify(LedgerReader reader, CloneRun run) throws IOException {
    long leaked = 0;
    for (String k : run.cloneKeys()) {
      if (reader.message(k).isPresent()) {
        leaked++;
      }
    }
    DeviceSummary summary =
        reader.devices().devices().stream()
            .filter(d -> d.deviceId().equals(OFFLINE))
            .findFirst()
            .orElse(null);
    Overview after = reader.overview();
    String line =
        "the original synced its "
            + LATE_MESSAGES
            + " new messages"
            + (run.originalSynced() ? "" : " NOT")
            + "; the clone's sync stopped with "
            + (run.stopReason() == null ? "nothing" : run.stopReason())
            + "; /admin/devices shows "
            + OFFLINE
            + " "
            + (summary == null ? "missing" : summary.status())
            + "; forks = "
            + after.forks()
            + "; "
            + leaked
            + " of the clone's "
            + run.cloneKeys().size()
            + " messages reached the server";
    boolean passed =
        run.stopReason() == SyncStoppedException.Reason.FORK
            && summary != null
            && Set.of(DeviceSummary.Status.FORKED, DeviceSummary.Status.QUARANTINED)
                .contains(summary.status())
            && reader.log(OFFLINE).status() == LogState.Status.QUARANTINED
            && run.originalSynced()
            && after.forks() == 1
            && leaked == 0
            && !run.cloneKeys().isEmpty();
    return new Checks.Check("cloned device refused as a fork and quarantined", passed, line);
  }
}
