package dev.danmakuledger.server.ingest;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.protocol.DeviceReport;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.server.storage.DeviceRow;

/**
 * Who vouches for what a batch reports besides its records (docs/sync.md, "Signed reports"):
 * counters, clock and queue state are the device's word only when its key signed them for this
 * batch. Decided right after the checkpoint verified, before anything is stored.
 */
enum ReportProvenance {
  /** No metadata at all. */
  NONE,
  /** Signed by the device's key for this batch: stored when newer than the last stored report. */
  SIGNED,
  /**
   * Sent without a signature, as agents before signed reports do: stored only with a batch that
   * extends the verified log (which only the device can sign), shown unsigned, never alerting.
   */
  UNSIGNED,
  /** A signature that does not verify: unauthenticated, counted and ignored entirely. */
  UNVERIFIED;

  /**
   * The provenance of {@code m} on the batch of {@code device} from {@code oldSize} to {@code cp}.
   */
  static ReportProvenance of(DeviceRow device, long oldSize, Checkpoint cp, BatchMetadata m) {
    if (m == null) {
      return NONE;
    }
    if (!m.signed()) {
      return UNSIGNED;
    }
    return DeviceReport.verifies(device.id(), device.publicKey(), oldSize, cp, m)
        ? SIGNED
        : UNVERIFIED;
  }

  /** {@code m} when it may be stored at all, else null. */
  BatchMetadata trusted(BatchMetadata m) {
    return this == UNVERIFIED ? null : m;
  }
}
