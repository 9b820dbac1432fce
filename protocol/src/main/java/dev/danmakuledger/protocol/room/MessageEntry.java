package dev.danmakuledger.protocol.room;

import dev.danmakuledger.protocol.Ascii;
import dev.danmakuledger.protocol.Quote;
import dev.danmakuledger.protocol.id.MessageId;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
    return new String(encode(), StandardCharsets.US_ASCII);
  }

  @Override
  public byte[] encode() {
    return write(
        seq, messageId, deviceId, deviceIndex, null, deviceLeafHashHex, idempotencyKey.toString());
  }

  /**
   * The bytes of the entry with these fields, as {@code new MessageEntry(...).encode()} gives them,
   * straight from stored values without building the entry; null when a field is not valid (the
   * constructor then says which). For the server, which writes an entry for every room slot.
   */
  public static byte[] encodeIfValid(
      long seq,
      long messageId,
      String deviceId,
      long deviceIndex,
      byte[] deviceLeafHash,
      String idempotencyKey) {
    if (seq < 1
        || messageId < 0
        || !IdempotencyKey.isValidId(deviceId)
        || deviceIndex < 0
        || deviceLeafHash == null
        || deviceLeafHash.length != 32
        || !IdempotencyKey.isWellFormed(idempotencyKey)
        || !idempotencyKey.startsWith(deviceId)
        || idempotencyKey.charAt(deviceId.length()) != ':') {
      return null;
    }
    return write(seq, messageId, deviceId, deviceIndex, deviceLeafHash, null, idempotencyKey);
  }

  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /**
   * {@code v1 <seq> M <messageId> <deviceId> <deviceIndex> <leafHashHex> <key>}, in ASCII; the leaf
   * hash given as its 32 bytes or, when {@code leaf} is null, as its 64 hex digits.
   */
  private static byte[] write(
      long seq,
      long messageId,
      String deviceId,
      long deviceIndex,
      byte[] leaf,
      String leafHex,
      String key) {
    byte[] out =
        new byte[3 + 20 + 3 + 20 + 1 + deviceId.length() + 1 + 20 + 1 + 64 + 1 + key.length()];
    int p = ascii(out, 0, "v1 ");
    p = decimal(out, p, seq);
    p = ascii(out, p, " " + TYPE + " ");
    p = decimal(out, p, messageId);
    out[p++] = ' ';
    p = ascii(out, p, deviceId);
    out[p++] = ' ';
    p = decimal(out, p, deviceIndex);
    out[p++] = ' ';
    if (leaf == null) {
      p = ascii(out, p, leafHex);
    } else {
      for (byte b : leaf) {
        out[p++] = HEX_DIGITS[(b >> 4) & 0xF];
        out[p++] = HEX_DIGITS[b & 0xF];
      }
    }
    out[p++] = ' ';
    p = ascii(out, p, key);
    return Arrays.copyOf(out, p);
  }

  /** Writes {@code s}, known to be ASCII, at {@code p}; returns the position after it. */
  private static int ascii(byte[] out, int p, String s) {
    for (int i = 0; i < s.length(); i++) {
      out[p++] = (byte) s.charAt(i);
    }
    return p;
  }

  /** Writes {@code v >= 0} in decimal at {@code p}; returns the position after it. */
  private static int decimal(byte[] out, int p, long v) {
    int digits = 1;
    for (long rest = v / 10; rest > 0; rest /= 10) {
      digits++;
    }
    for (int i = p + digits - 1; i >= p; i--) {
      out[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    return p + digits;
  }
}
