package dev.danmakuledger.edge.store;

/**
 * One row of the records table. {@code outcome}, {@code seq}, {@code messageId}, {@code
 * outcomeReason} and {@code syncedAt} are null until the server has answered for the record.
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
    Long syncedAt) {
  public StoredRecord {
    if (index < 0) {
      throw new IllegalArgumentException("record index: got " + index + ", want >= 0");
    }
    if (idempotencyKey == null || contentHash == null || canonical == null || leafHash == null) {
      throw new IllegalArgumentException(
          "stored record " + index + ": got a null column, want all set");
    }
  }
}
