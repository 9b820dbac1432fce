package dev.danmakuledger.edge.sync;

import java.util.Map;

/**
 * What one sync run achieved.
 *
 * @param localSize the device log size the run aimed for
 * @param verifiedSize the size the server has verified at the end of the run
 * @param batches batches the server accepted (including those whose replies were lost: replayed, or
 *     found stored when the run read the verified size again)
 * @param recordsSent records in those batches
 * @param retries requests repeated after a transient failure
 * @param resumes times the run re-read the server's verified size (409 size-mismatch)
 * @param outcomes local record counts by server outcome ("UNSYNCED" for none yet)
 * @param receiptSize the largest log size covered by a stored server receipt, or -1
 */
public record SyncReport(
    long localSize,
    long verifiedSize,
    int batches,
    long recordsSent,
    long retries,
    int resumes,
    Map<String, Long> outcomes,
    long receiptSize) {
  public SyncReport {
    if (localSize < 0 || verifiedSize < 0 || batches < 0 || recordsSent < 0 || retries < 0) {
      throw new IllegalArgumentException(
          "sync report: got sizes " + localSize + "/" + verifiedSize + ", want counts >= 0");
    }
    outcomes = Map.copyOf(outcomes);
  }

  /** Records that have no server outcome yet. */
  public long unsynced() {
    return outcomes.getOrDefault("UNSYNCED", 0L);
  }

  /** True when every record up to {@code localSize} has an outcome and a receipt covers them. */
  public boolean complete() {
    return unsynced() == 0
        && verifiedSize >= localSize
        && (localSize == 0 || receiptSize >= localSize);
  }
}
