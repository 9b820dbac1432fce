package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.protocol.DeviceReport;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import java.io.IOException;
import java.time.Clock;
import java.util.Optional;

/**
 * Numbers and signs what the agent reports with each batch (docs/sync.md, "Signed reports"), so the
 * server keeps counters, clock and queue state only from this device, and each report once. Report
 * numbers grow: each is above the last one used (kept in the store's meta table, written before the
 * report leaves) and at least the wall clock, so a data directory restored from a backup still
 * numbers above what the server saw once its clock has passed it.
 */
final class ReportSigner {
  /** Meta-table name of the last report number used. */
  static final String LAST_REPORT = "sync_last_report_seq";

  private final EdgeStore store;
  private final DeviceIdentity identity;
  private final Clock clock;

  ReportSigner(EdgeStore store, DeviceIdentity identity, Clock clock) {
    this.store = store;
    this.identity = identity;
    this.clock = clock;
  }

  /** {@code m} numbered and signed for the batch from {@code oldSize} to {@code checkpoint}. */
  BatchMetadata sign(BatchMetadata m, long oldSize, Checkpoint checkpoint) throws IOException {
    return DeviceReport.sign(
        identity.signer(), identity.deviceId(), oldSize, checkpoint, m, next());
  }

  private long next() throws IOException {
    Optional<String> last = store.meta(LAST_REPORT);
    long seq = Math.max(clock.millis(), 0);
    if (last.isPresent()) {
      try {
        seq = Math.max(seq, Math.addExact(Long.parseLong(last.get()), 1));
      } catch (NumberFormatException | ArithmeticException e) {
        throw new IOException("store: meta " + LAST_REPORT + " is " + last.get(), e);
      }
    }
    store.putMeta(LAST_REPORT, Long.toString(seq));
    return seq;
  }
}
