package dev.danmakuledger.protocol.wire;

import com.fasterxml.jackson.annotation.JsonInclude;

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
 * @param room for DUPLICATE and CONFLICT: the room of the original message, which {@code seq}
 *     numbers (a key reused in another room conflicts with a message of that room); else null and
 *     left out of the JSON, so replies without conflicts read as before
 */
public record RecordOutcome(
    long index,
    String idempotencyKey,
    Outcome outcome,
    Long seq,
    String messageId,
    String originalStatus,
    String reason,
    @JsonInclude(JsonInclude.Include.NON_NULL) String room) {
  /** Checks that required members are present and counts are not negative. */
  public RecordOutcome {
    Checks.nonNegative("index", index);
    Checks.required("outcome", outcome);
  }

  /** An outcome that names no original's room (CONFIRMED, PENDING, REJECTED). */
  public RecordOutcome(
      long index,
      String idempotencyKey,
      Outcome outcome,
      Long seq,
      String messageId,
      String originalStatus,
      String reason) {
    this(index, idempotencyKey, outcome, seq, messageId, originalStatus, reason, null);
  }
}
