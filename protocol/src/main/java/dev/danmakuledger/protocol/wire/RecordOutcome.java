package dev.danmakuledger.protocol.wire;

/**
 * What the server did with one record of a batch (docs/architecture.md §4, record outcomes).
 *
 * @param index the record's index in the device log
 * @param idempotencyKey the record's key, or null if the record could not be decoded
 * @param outcome the outcome
 * @param seq the room sequence number (for DUPLICATE the original's), or null
 * @param messageId the message id in decimal (for DUPLICATE the original's), or null
 * @param originalStatus for DUPLICATE: the status of the original message, else null
 * @param reason why the record was rejected or conflicts, or null
 */
public record RecordOutcome(
    long index,
    String idempotencyKey,
    Outcome outcome,
    Long seq,
    String messageId,
    String originalStatus,
    String reason) {
  /** Checks that required members are present and counts are not negative. */
  public RecordOutcome {
    Checks.nonNegative("index", index);
    Checks.required("outcome", outcome);
  }
}
