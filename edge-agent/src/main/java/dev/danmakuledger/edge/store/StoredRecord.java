package dev.danmakuledger.edge.store;

/**
 * One row of the records table. {@code outcome}, {@code seq}, {@code messageId}, {@code
 * outcomeReason} and {@code syncedAt} are null until the server has answered for the record. A
 * pruned record (docs/edge-agent.md "Retention and pruning") has {@code prunedAt} set and empty
 * {@code canonical} bytes; its key, content hash, leaf hash and outcome are kept.
 */
public record StoredRecord(
    long index,
    String idempotencyKey,
    String contentHash,
    byte[] canonical,
    byte[] leafHash,
    long capturedAt,
    long checkpointSize,
    String outcome,
    Long seq,
    String messageId,
    String outcomeReason,
    Long syncedAt,
    Long prunedAt) {
  public StoredRecord {
    if (index < 0) {
      throw new IllegalArgumentException("record index: got " + index + ", want >= 0");
    }
    if (idempotencyKey == null || contentHash == null || canonical == null || leafHash == null) {
      throw new IllegalArgumentException(
          "stored record " + index + ": got a null column, want all set");
    }
    if (prunedAt != null && canonical.length != 0) {
      throw new IllegalArgumentException(
          "stored record "
              + index
              + ": got "
              + canonical.length
              + " canonical bytes on a pruned record, want 0");
    }
  }

  /** True when the canonical bytes were dropped by retention pruning. */
  public boolean pruned() {
    return prunedAt != null;
  }
}
