package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.room.MessageEntry;
import dev.danmakuledger.protocol.room.RoomLogEntry;
import dev.danmakuledger.protocol.room.TombstoneEntry;
import dev.danmakuledger.protocol.room.TombstoneReason;
import dev.danmakuledger.server.storage.LogSlot;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Turns a committed room slot into its room log entry, format v1 (docs/room-log.md, "Entry format,
 * version 1"): a message becomes {@code v1 <seq> M <messageId> <deviceId> <deviceIndex>
 * <deviceLeafHashHex> <idempotencyKey>}, with the RFC 6962 leaf hash of the device record's
 * canonical bytes; a tombstone becomes {@code v1 <seq> T <reason>}. The review status is not part
 * of the entry.
 */
final class SlotEntries {
  private SlotEntries() {}

  /**
   * Returns the entry of {@code slot}, or empty when the slot is a message whose device record is
   * not visible (then the slot is treated as not yet committed).
   */
  static Optional<RoomLogEntry> of(LogSlot slot) {
    if (slot.isTombstone()) {
      return Optional.of(tombstone(slot.seq(), slot.reason()));
    }
    byte[] leaf = slot.deviceLeafHash();
    if (leaf == null
        || slot.messageId() == null
        || slot.deviceId() == null
        || slot.deviceIndex() == null
        || slot.idempotencyKey() == null) {
      return Optional.empty();
    }
    return Optional.of(
        new MessageEntry(
            slot.seq(),
            slot.messageId(),
            slot.deviceId(),
            slot.deviceIndex(),
            HexFormat.of().formatHex(leaf),
            IdempotencyKey.parse(slot.idempotencyKey())));
  }

  /**
   * Returns the bytes of the entry of {@code slot} (as {@code of(slot).get().encode()}), written
   * straight from the slot's fields when they are valid, or empty as {@link #of} is.
   *
   * @throws IllegalArgumentException as {@link #of} does when a stored field is not valid
   */
  static Optional<byte[]> encoded(LogSlot slot) {
    if (!slot.isTombstone() && slot.messageId() != null && slot.deviceIndex() != null) {
      byte[] fast =
          MessageEntry.encodeIfValid(
              slot.seq(),
              slot.messageId(),
              slot.deviceId(),
              slot.deviceIndex(),
              slot.deviceLeafHash(),
              slot.idempotencyKey());
      if (fast != null) {
        return Optional.of(fast);
      }
    }
    return of(slot).map(RoomLogEntry::encode);
  }

  /** A tombstone with its stored reason, or {@code unrecorded} if that is not a valid code. */
  static TombstoneEntry tombstone(long seq, String reason) {
    if (reason != null) {
      try {
        return new TombstoneEntry(seq, reason);
      } catch (IllegalArgumentException e) {
        // falls through: an old row's free-text reason is not an entry code
      }
    }
    return TombstoneEntry.of(seq, TombstoneReason.UNRECORDED);
  }
}
