package dev.danmakuledger.server.storage;

import java.util.Objects;

/**
 * One numbered slot of a room: a message, or a tombstone whose message fields are null.
 *
 * @param room room
 * @param seq per-room sequence number (from 1)
 * @param messageId 64-bit message id, null for a tombstone
 * @param idempotencyKey key, null for a tombstone
 * @param contentHash content hash of the record, null for a tombstone
 * @param deviceId capturing device, null for a tombstone
 * @param deviceIndex index in the device log, null for a tombstone
 * @param user user id, null for a tombstone
 * @param text message text, null for a tombstone
 * @param playbackMs playback position, or null
 * @param mode danmaku mode, 0 for a tombstone
 * @param color 24-bit color, 0 for a tombstone
 * @param fontSize font size, 0 for a tombstone
 * @param hlc capture HLC (packed), 0 for a tombstone
 * @param status status
 * @param reason rejection reason, or null
 * @param version compare-and-set version
 */
public record MessageRow(
    String room,
    long seq,
    Long messageId,
    String idempotencyKey,
    String contentHash,
    String deviceId,
    Long deviceIndex,
    String user,
    String text,
    Long playbackMs,
    int mode,
    int color,
    int fontSize,
    long hlc,
    MessageStatus status,
    String reason,
    long version) {

  public MessageRow {
    Objects.requireNonNull(room, "room");
    Objects.requireNonNull(status, "status");
    if (seq < 1) {
      throw new IllegalArgumentException("seq: got " + seq + ", want >= 1");
    }
    if ((status == MessageStatus.TOMBSTONE) != (idempotencyKey == null)) {
      throw new IllegalArgumentException(
          "idempotencyKey: got " + idempotencyKey + " for " + status + ", want null iff TOMBSTONE");
    }
  }

  /** A tombstone accounting for a burned number. */
  public static MessageRow tombstone(String room, long seq, String reason) {
    return new MessageRow(
        room,
        seq,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        0,
        0,
        0,
        0,
        MessageStatus.TOMBSTONE,
        reason,
        0);
  }
}
