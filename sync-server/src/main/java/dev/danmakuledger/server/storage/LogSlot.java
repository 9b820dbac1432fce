package dev.danmakuledger.server.storage;

import java.util.Objects;

/**
 * One committed slot of a room as the room-log integrator reads it (docs/room-log.md,
 * "Integration"): a message with the canonical bytes of its device record, or a tombstone with its
 * reason.
 *
 * @param seq room sequence number, {@code >= 1}
 * @param status the slot's status (review decisions do not change the entry)
 * @param reason the tombstone reason, or null for a message
 * @param messageId message id, null for a tombstone
 * @param deviceId capturing device, null for a tombstone
 * @param deviceIndex index in the device log, null for a tombstone
 * @param idempotencyKey the message's key, null for a tombstone
 * @param canonical the device record's canonical bytes, null for a tombstone (or a message whose
 *     record row is not visible, which the integrator treats as not yet committed)
 */
public record LogSlot(
    long seq,
    MessageStatus status,
    String reason,
    Long messageId,
    String deviceId,
    Long deviceIndex,
    String idempotencyKey,
    byte[] canonical) {

  public LogSlot {
    Objects.requireNonNull(status, "status");
    if (seq < 1) {
      throw new IllegalArgumentException("seq: got " + seq + ", want >= 1");
    }
    canonical = canonical == null ? null : canonical.clone();
  }

  @Override
  public byte[] canonical() {
    return canonical == null ? null : canonical.clone();
  }

  public boolean isTombstone() {
    return status == MessageStatus.TOMBSTONE;
  }
}
