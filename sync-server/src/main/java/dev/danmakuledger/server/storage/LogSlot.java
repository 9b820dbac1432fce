package dev.danmakuledger.server.storage;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.Objects;

/**
 * One committed slot of a room as the room-log integrator reads it (docs/room-log.md,
 * "Integration"): a message with the RFC 6962 leaf hash of its device record (its leaf in the
 * device log), or a tombstone with its reason.
 *
 * @param seq room sequence number, {@code >= 1}
 * @param status the slot's status (review decisions do not change the entry)
 * @param reason the tombstone reason, or null for a message
 * @param messageId message id, null for a tombstone
 * @param deviceId capturing device, null for a tombstone
 * @param deviceIndex index in the device log, null for a tombstone
 * @param idempotencyKey the message's key, null for a tombstone
 * @param deviceLeafHash the leaf hash of the device record's canonical bytes, null for a tombstone
 *     (or a message whose record row is not visible, which the integrator treats as not yet
 *     committed)
 */
public record LogSlot(
    long seq,
    MessageStatus status,
    String reason,
    Long messageId,
    String deviceId,
    Long deviceIndex,
    String idempotencyKey,
    byte[] deviceLeafHash) {

  public LogSlot {
    Objects.requireNonNull(status, "status");
    if (seq < 1) {
      throw new IllegalArgumentException("seq: got " + seq + ", want >= 1");
    }
    if (deviceLeafHash != null) {
      Rfc6962.checkHash("deviceLeafHash", deviceLeafHash);
      deviceLeafHash = deviceLeafHash.clone();
    }
  }

  @Override
  public byte[] deviceLeafHash() {
    return deviceLeafHash == null ? null : deviceLeafHash.clone();
  }

  /** This slot with the leaf hash of its device record. */
  public LogSlot withDeviceLeafHash(byte[] hash) {
    return new LogSlot(seq, status, reason, messageId, deviceId, deviceIndex, idempotencyKey, hash);
  }

  public boolean isTombstone() {
    return status == MessageStatus.TOMBSTONE;
  }
}
