package dev.danmakuledger.server.storage;

import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import java.util.Objects;

/**
 * One record of a device log as the server stored it, with the outcome it returned.
 *
 * @param deviceId device id
 * @param index index in the device log
 * @param idempotencyKey the record's key, or null when the bytes did not decode
 * @param canonical the canonical bytes (the Merkle leaf)
 * @param outcome the outcome
 * @param room room (for DUPLICATE/CONFLICT: the original's), or null when the bytes did not decode
 * @param seq assigned or original sequence number, or null
 * @param messageId assigned or original message id, or null
 * @param originalStatus for DUPLICATE/CONFLICT: the status of the original, else null
 * @param reason why the record was rejected or conflicted, or null
 */
public record DeviceRecordRow(
    String deviceId,
    long index,
    String idempotencyKey,
    byte[] canonical,
    Outcome outcome,
    String room,
    Long seq,
    Long messageId,
    String originalStatus,
    String reason) {

  public DeviceRecordRow {
    Objects.requireNonNull(deviceId, "deviceId");
    Objects.requireNonNull(canonical, "canonical");
    Objects.requireNonNull(outcome, "outcome");
    if (index < 0) {
      throw new IllegalArgumentException("index: got " + index + ", want >= 0");
    }
  }

  /** The outcome as the API returns it; DUPLICATE and CONFLICT name the original's room. */
  public RecordOutcome wire() {
    boolean original = outcome == Outcome.DUPLICATE || outcome == Outcome.CONFLICT;
    return new RecordOutcome(
        index,
        idempotencyKey,
        outcome,
        seq,
        messageId == null ? null : Long.toString(messageId),
        originalStatus,
        reason,
        original ? room : null);
  }
}
