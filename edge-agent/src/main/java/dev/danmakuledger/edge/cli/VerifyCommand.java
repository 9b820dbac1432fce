package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.verify.LogVerifier;
import dev.danmakuledger.edge.verify.VerifyReport;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code edge-agent verify}: fsck of the device log. */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = {
      "Audit the store: decode every record, recompute every leaf hash and the Merkle root, and"
          + " check every checkpoint signature and root.",
      "Records pruned by retention are not decoded: their stored leaf hashes are checked against"
          + " the signed roots.",
      "Exit 1 with the first bad index on failure."
    })
final class VerifyCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin DataDirOption dir;

  @Override
  public Integer call() throws Exception {
    AgentConfig config = AgentConfig.load(dir.dataDir);
    DeviceIdentity identity = DeviceIdentity.load(dir.dataDir, config.deviceId());
    LogVerifier verifier = new LogVerifier(config.deviceId(), identity.signer().verifier());
    VerifyReport report;
    try (EdgeStore store = EdgeStore.openReadOnly(EdgeStore.fileIn(dir.dataDir))) {
      report = verifier.verify(store);
    } catch (StoreException e) {
      report = new VerifyReport(false, 0, 0, null, null, "store is unreadable: " + e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    if (report.ok()) {
      out.printf(
          "ok: %d records, %d checkpoints verified, root %s%n",
          report.recordsChecked(), report.checkpointsChecked(), report.rootHex());
      if (report.recordsPruned() > 0) {
        out.printf(
            "pruned: %d records (leaf hashes checked, bytes dropped by retention, not decoded)%n",
            report.recordsPruned());
      }
      return ExitCodes.OK;
    }
    out.printf(
        "FAILED%s: %s%n",
        report.firstBadIndex() == null ? "" : " at index " + report.firstBadIndex(),
        report.problem());
    return ExitCodes.FAILED;
  }
}
