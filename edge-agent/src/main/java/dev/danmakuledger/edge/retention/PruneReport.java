package dev.danmakuledger.edge.retention;

/**
 * What one pruning pass did (docs/edge-agent.md "Retention and pruning"): {@code pruned} records
 * lost their canonical bytes now, {@code prunedTotal} records are pruned in the store afterwards,
 * {@code coveredSize} is the size of the latest stored server receipt (nothing at or above it is
 * ever pruned) and {@code capturedBefore} the capture-time cut-off in epoch milliseconds.
 */
public record PruneReport(long pruned, long prunedTotal, long coveredSize, long capturedBefore) {
  public PruneReport {
    if (pruned < 0 || prunedTotal < pruned || coveredSize < 0) {
      throw new IllegalArgumentException(
          "prune report: got pruned "
              + pruned
              + ", total "
              + prunedTotal
              + ", covered "
              + coveredSize
              + ", want 0 <= pruned <= total and covered >= 0");
    }
  }
}
