package dev.danmakuledger.protocol.room;

import dev.danmakuledger.protocol.Ascii;
import dev.danmakuledger.protocol.Quote;
import dev.danmakuledger.protocol.id.MessageId;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.util.HexFormat;

/**
 * A room log entry assigning sequence number {@code seq} to one device record: {@code v1 <seq> M
 * <messageId> <deviceId> <deviceIndex> <deviceLeafHashHex> <idempotencyKey>} ({@code
 * docs/room-log.md}). {@code deviceLeafHashHex} is the RFC 6962 leaf hash of the record's canonical
 * bytes, i.e. leaf {@code deviceIndex} of the device log {@code danmaku-ledger/device/<deviceId>},
 * so an auditor holding both logs can match every room number to a device-signed record.
 *
 * @param seq room sequence number, {@code >= 1}
 * @param messageId the 63-bit message id (docs/architecture.md §5), {@code >= 0}
 * @param deviceId the capturing device, {@code [A-Za-z0-9_-]{1,64}}
 * @param deviceIndex the record's index in the device log, {@code >= 0}
 * @param deviceLeafHashHex 64 lowercase hex digits
 * @param idempotencyKey the record's key; its deviceId must be {@code deviceId}
 */
public record MessageEntry(
    long seq,
    long messageId,
    String deviceId,
    long deviceIndex,
    String deviceLeafHashHex,
    IdempotencyKey idempotencyKey)
    implements RoomLogEntry {
  static final String TYPE = "M";

  /** Validates every field. */
  public MessageEntry {
    if (seq < 1) {
      throw new IllegalArgumentException("seq: got " + seq + ", want >= 1");
    }
    MessageId.decode(messageId);
    if (!IdempotencyKey.isValidId(deviceId)) {
      throw new IllegalArgumentException(
          "deviceId: got " + Quote.of(deviceId) + ", want [A-Za-z0-9_-]{1,64}");
    }
    if (deviceIndex < 0) {
      throw new IllegalArgumentException("deviceIndex: got " + deviceIndex + ", want >= 0");
    }
    if (deviceLeafHashHex == null
        || deviceLeafHashHex.length() != 64
        || !Ascii.allLowerHex(deviceLeafHashHex)) {
      throw new IllegalArgumentException(
          "deviceLeafHashHex: got " + Quote.of(deviceLeafHashHex) + ", want 64 lowercase hex");
    }
    if (idempotencyKey == null || !idempotencyKey.deviceId().equals(deviceId)) {
      throw new IllegalArgumentException(
          "idempotencyKey: got "
              + (idempotencyKey == null ? "null" : Quote.of(idempotencyKey.toString()))
              + ", want a key of device "
              + Quote.of(deviceId));
    }
  }

  /** Returns the entry for {@code record}, numbered {@code seq} with message id {@code id}. */
  public static MessageEntry of(long seq, MessageId id, DanmakuRecord record) {
    return new MessageEntry(
        seq,
        id.encode(),
        record.deviceId(),
        record.index(),
        HexFormat.of().formatHex(record.leafHash()),
        record.key());
  }

  /** Returns the 32-byte device leaf hash. */
  public byte[] deviceLeafHash() {
    return HexFormat.of().parseHex(deviceLeafHashHex);
  }

  @Override
  public String text() {
    return String.join(
        " ",
        "v1",
        Long.toString(seq),
        TYPE,
        Long.toString(messageId),
        deviceId,
        Long.toString(deviceIndex),
        deviceLeafHashHex,
        idempotencyKey.toString());
  }
}
