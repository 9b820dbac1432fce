package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.storage.DeviceSyncStates;

/**
 * The queue report of one attempt, stored exactly once: in the batch's transaction when the batch
 * commits, on its own otherwise (a resend, an empty batch, a refusal). Authenticated: a signed one
 * is stored also when its batch is refused.
 */
final class QueueReport {
  private final QueueReports reports;
  private DeviceSyncStates.Report pending;

  QueueReport(QueueReports reports, DeviceSyncStates.Report report) {
    this.reports = reports;
    this.pending = report;
  }

  /** The report for the batch's transaction, or null when there is none to store. */
  DeviceSyncStates.Report pending() {
    return pending;
  }

  /** The batch committed, and the report with it. */
  void committedWithBatch() {
    pending = null;
  }

  /** Stores the report on its own unless it was stored already. */
  void storeAlone() {
    DeviceSyncStates.Report r = pending;
    pending = null;
    if (r != null) {
      reports.storeAlone(r);
    }
  }
}
