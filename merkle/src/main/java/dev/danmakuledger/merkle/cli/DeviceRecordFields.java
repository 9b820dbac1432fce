package dev.danmakuledger.merkle.cli;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The fields of a canonical record (docs/canonical-record.md, versions 1 and 2) that tie it to a
 * room log entry: idempotency key, device id and device-log index. The merkle module may not depend
 * on protocol, whose {@code CanonicalRecord.decode} is the full definition; this walks the whole
 * layout (every length bounded, presence byte 0 or 1, nothing after the index) and checks only what
 * an audit bundle compares, so a record that is not a single well-formed encoding is refused, but
 * field rules such as the text's code points are left to the protocol decoder. A version 2 record
 * ends in its 16-byte blind, which only its leaf hash depends on.
 *
 * @param idempotencyKey the key, {@code deviceId:userId:unixMillis:nonce}
 * @param deviceId the capturing device
 * @param index the record's position in the device log
 */
record DeviceRecordFields(String idempotencyKey, String deviceId, long index) {
  /** Largest version 1 encoding (docs/canonical-record.md). */
  static final int MAX_V1_LENGTH = 1652;

  /** Length of a version 2 record's blind. */
  static final int BLIND_BYTES = 16;

  /** Largest encoding of any version. */
  static final int MAX_ENCODED_LENGTH = MAX_V1_LENGTH + BLIND_BYTES;

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern KEY =
      Pattern.compile(
          "([A-Za-z0-9_-]{1,64}):[A-Za-z0-9_-]{1,64}:[1-9][0-9]{12}:[0-9a-fA-F]{16,64}");

  /**
   * Decodes the layout of {@code bytes}.
   *
   * @throws IllegalArgumentException saying which field is malformed
   */
  static DeviceRecordFields decode(byte[] bytes) {
    if (bytes.length > MAX_ENCODED_LENGTH) {
      throw new IllegalArgumentException(
          "record: got " + bytes.length + " bytes, want at most " + MAX_ENCODED_LENGTH);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      int version = b.get() & 0xff;
      if (version != 1 && version != 2) {
        throw new IllegalArgumentException("record version: got " + version + ", want 1 or 2");
      }
      String key = string(b, "idempotency key", 208);
      String deviceId = string(b, "deviceId", 64);
      string(b, "room", 64);
      string(b, "user", 64);
      string(b, "text", 1200);
      int presence = b.get() & 0xff;
      if (presence > 1) {
        throw new IllegalArgumentException(
            "record playbackMs presence: got " + presence + ", want 0 or 1");
      }
      if (presence == 1) {
        nonNegative(b.getLong(), "playbackMs");
      }
      b.get();
      b.getInt();
      b.get();
      nonNegative(b.getLong(), "hlc");
      long index = nonNegative(b.getLong(), "index");
      int tail = version == 2 ? BLIND_BYTES : 0;
      if (b.remaining() != tail) {
        throw new IllegalArgumentException(
            "record: " + b.remaining() + " bytes after the index, want " + tail);
      }
      var m = KEY.matcher(key);
      if (!m.matches()) {
        throw new IllegalArgumentException("record idempotency key: malformed \"" + key + "\"");
      }
      if (!ID.matcher(deviceId).matches() || !m.group(1).equals(deviceId)) {
        throw new IllegalArgumentException(
            "record deviceId: got \"" + deviceId + "\", want the key's \"" + m.group(1) + "\"");
      }
      return new DeviceRecordFields(key, deviceId, index);
    } catch (java.nio.BufferUnderflowException e) {
      throw new IllegalArgumentException("record: truncated", e);
    }
  }

  private static String string(ByteBuffer b, String field, int max) {
    long len = b.getInt() & 0xffffffffL;
    if (len > max) {
      throw new IllegalArgumentException(
          "record " + field + ": length " + len + ", want at most " + max);
    }
    if (len > b.remaining()) {
      throw new IllegalArgumentException("record: truncated in " + field);
    }
    byte[] s = new byte[(int) len];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }

  private static long nonNegative(long v, String field) {
    if (v < 0) {
      throw new IllegalArgumentException("record " + field + ": got " + v + ", want >= 0");
    }
    return v;
  }
}
