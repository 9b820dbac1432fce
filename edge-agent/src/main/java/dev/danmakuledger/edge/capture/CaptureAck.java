package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.store.StoredRecord;

/**
 * The local acknowledgement of a capture: where the record sits in the device log and when it was
 * captured; {@code repeat} is true when the key had been captured before and this is the original
 * ack. {@code outcome}, {@code seq} and {@code messageId} are the server's answer once synced (null
 * before).
 */
public record CaptureAck(
    String idempotencyKey,
    long index,
    long capturedAt,
    boolean repeat,
    String outcome,
    Long seq,
    String messageId) {
  public CaptureAck {
    if (idempotencyKey == null || index < 0) {
      throw new IllegalArgumentException(
          "ack: got key " + idempotencyKey + " at index " + index + ", want a key at index >= 0");
    }
  }

  static CaptureAck of(StoredRecord r, boolean repeat) {
    return new CaptureAck(
        r.idempotencyKey(), r.index(), r.capturedAt(), repeat, r.outcome(), r.seq(), r.messageId());
  }

  CaptureAck asRepeat() {
    return new CaptureAck(idempotencyKey, index, capturedAt, true, outcome, seq, messageId);
  }
}
