package dev.danmakuledger.edge.store;

/** A record about to be appended: its index, key, content hash, leaf bytes and leaf hash. */
public record NewRecord(
    long index,
    String idempotencyKey,
    String contentHash,
    byte[] canonical,
    byte[] leafHash,
    long capturedAt) {
  public NewRecord {
    if (index < 0) {
      throw new IllegalArgumentException("record index: got " + index + ", want >= 0");
    }
    if (idempotencyKey == null || contentHash == null || canonical == null || leafHash == null) {
      throw new IllegalArgumentException(
          "new record " + index + ": got a null field, want all set");
    }
  }
}
