package dev.danmakuledger.protocol.record;

import dev.danmakuledger.protocol.StrictUtf8;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.key.MalformedKeyException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * The canonical byte encoding of a {@link DanmakuRecord}, format versions 1 and 2, specified byte
 * by byte in docs/canonical-record.md. These bytes are the leaf data of the device log (RFC 9162
 * §2.1.1), so the encoding is deterministic and bijective: every valid record has exactly one
 * encoding, and {@link #decode} accepts nothing else. Version 2 is version 1 with the version byte
 * 0x02 and the record's 16-byte blind after the index ("Version 2: blinded leaves").
 */
public final class CanonicalRecord {
  /** The format version byte that starts every encoding. */
  public static final byte VERSION_1 = 0x01;

  /** The format version byte of blinded records. */
  public static final byte VERSION_2 = 0x02;

  /** Longest possible version 1 encoding of a valid record. */
  public static final int MAX_V1_LENGTH =
      1 + (4 + 208) + 3 * (4 + 64) + (4 + 4 * TextRules.MAX_CODE_POINTS) + 9 + 1 + 4 + 1 + 8 + 8;

  /** Longest possible encoding of a valid record, of any version. */
  public static final int MAX_ENCODED_LENGTH = MAX_V1_LENGTH + Blind.BYTES;

  static final int MAX_TEXT_BYTES = 4 * TextRules.MAX_CODE_POINTS;

  private CanonicalRecord() {}

  /** Returns the encoding of {@code record}: version 2 when it has a blind, else version 1. */
  public static byte[] encode(DanmakuRecord record) {
    return encodeAt(record, record.index(), record.hlc());
  }

  /**
   * The encoding of {@code record.withIndexAndHlc(index, hlc)}, written without building that copy;
   * the caller has checked {@code index} and {@code hlc}.
   */
  static byte[] encodeAt(DanmakuRecord record, long index, long hlc) {
    byte[] key = utf8(record.key().toString());
    Content content = new Content(record);
    Blind blind = record.blind();
    int tail = blind == null ? 0 : Blind.BYTES;
    Writer out = new Writer(1 + 4 + key.length + content.length() + 8 + 8 + tail);
    out.u8(blind == null ? VERSION_1 : VERSION_2);
    out.string(key);
    content.writeTo(out);
    out.i64(hlc);
    out.i64(index);
    if (blind != null) {
      out.i64(blind.high());
      out.i64(blind.low());
    }
    return out.toByteArray();
  }

  /** Refuses a negative log index or capture clock for a record's place in the log. */
  static void checkPlace(long index, long hlc) {
    if (hlc < 0) {
      throw new InvalidRecordException("hlc", "hlc: got " + hlc + ", want >= 0");
    }
    if (index < 0) {
      throw new InvalidRecordException("index", "index: got " + index + ", want >= 0");
    }
  }

  /**
   * Decodes a version 1 or version 2 encoding, strictly.
   *
   * @throws InvalidRecordException if the bytes are not exactly the encoding of a valid record:
   *     unknown version, truncated, trailing bytes, a length over the field's bound, invalid UTF-8,
   *     a presence byte other than 0 or 1, or any field rule broken
   */
  public static DanmakuRecord decode(byte[] bytes) {
    if (bytes == null) {
      throw new InvalidRecordException("encoding", "canonical record: got null, want bytes");
    }
    if (bytes.length > MAX_ENCODED_LENGTH) {
      throw new InvalidRecordException(
          "encoding",
          "canonical record: got " + bytes.length + " bytes, want at most " + MAX_ENCODED_LENGTH);
    }
    Reader in = new Reader(bytes);
    int version = in.u8("version");
    if (version != VERSION_1 && version != VERSION_2) {
      throw new InvalidRecordException(
          "encoding",
          String.format("canonical record version: got 0x%02x, want 0x01 or 0x02", version));
    }
    if (version == VERSION_1 && bytes.length > MAX_V1_LENGTH) {
      throw new InvalidRecordException(
          "encoding",
          "canonical record version 1: got "
              + bytes.length
              + " bytes, want at most "
              + MAX_V1_LENGTH);
    }
    String keyString = in.string("key", IdempotencyKey.MAX_LENGTH);
    String deviceId = in.string("deviceId", 64);
    String room = in.string("room", DanmakuRecord.MAX_ROOM_LENGTH);
    String user = in.string("user", 64);
    String text = in.string("text", MAX_TEXT_BYTES);
    int presence = in.u8("playbackMs");
    Long playbackMs;
    if (presence == 0) {
      playbackMs = null;
    } else if (presence == 1) {
      playbackMs = in.i64("playbackMs");
    } else {
      throw new InvalidRecordException(
          "playbackMs", "playbackMs presence byte: got " + presence + ", want 0 or 1");
    }
    int mode = in.u8("mode");
    int color = in.i32("color");
    int fontSize = in.u8("fontSize");
    long hlc = in.i64("hlc");
    long index = in.i64("index");
    Blind blind = version == VERSION_2 ? new Blind(in.i64("blind"), in.i64("blind")) : null;
    if (in.remaining() != 0) {
      throw new InvalidRecordException(
          "encoding", "canonical record: got " + in.remaining() + " trailing bytes, want none");
    }
    IdempotencyKey key;
    try {
      key = IdempotencyKey.parse(keyString);
    } catch (MalformedKeyException e) {
      throw new InvalidRecordException("key", e.getMessage(), e);
    }
    return new DanmakuRecord(
        key, deviceId, room, user, text, playbackMs, mode, color, fontSize, hlc, index, blind);
  }

  /** The content encoding hashed by {@link DanmakuRecord#contentHash()}. */
  static byte[] encodeContent(DanmakuRecord record) {
    Content content = new Content(record);
    Writer out = new Writer(1 + content.length());
    out.u8(VERSION_1);
    content.writeTo(out);
    return out.toByteArray();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The content fields of a record as UTF-8, so the encoding's exact length is known up front. */
  private static final class Content {
    private final DanmakuRecord record;
    private final byte[] deviceId;
    private final byte[] room;
    private final byte[] user;
    private final byte[] text;

    Content(DanmakuRecord record) {
      this.record = record;
      this.deviceId = utf8(record.deviceId());
      this.room = utf8(record.room());
      this.user = utf8(record.user());
      this.text = utf8(record.text());
    }

    int length() {
      int strings = 4 * 4 + deviceId.length + room.length + user.length + text.length;
      int playback = record.playbackMs() == null ? 1 : 1 + 8;
      return strings + playback + 1 + 4 + 1;
    }

    void writeTo(Writer out) {
      out.string(deviceId);
      out.string(room);
      out.string(user);
      out.string(text);
      if (record.playbackMs() == null) {
        out.u8(0);
      } else {
        out.u8(1);
        out.i64(record.playbackMs());
      }
      out.u8(record.mode());
      out.i32(record.color());
      out.u8(record.fontSize());
    }
  }

  /** Big-endian writes into an array of the exact encoded length. */
  private static final class Writer {
    private final ByteBuffer buf;

    Writer(int length) {
      this.buf = ByteBuffer.allocate(length);
    }

    void u8(int v) {
      buf.put((byte) v);
    }

    void i32(int v) {
      buf.putInt(v);
    }

    void i64(long v) {
      buf.putLong(v);
    }

    void string(byte[] utf8) {
      buf.putInt(utf8.length);
      buf.put(utf8);
    }

    byte[] toByteArray() {
      if (buf.hasRemaining()) {
        throw new IllegalStateException(
            "canonical encoding: got " + buf.position() + " bytes written, want " + buf.capacity());
      }
      return buf.array();
    }
  }

  private static final class Reader {
    private final ByteBuffer buf;

    Reader(byte[] bytes) {
      this.buf = ByteBuffer.wrap(bytes);
    }

    int remaining() {
      return buf.remaining();
    }

    int u8(String field) {
      need(field, 1);
      return buf.get() & 0xFF;
    }

    int i32(String field) {
      need(field, 4);
      return buf.getInt();
    }

    long i64(String field) {
      need(field, 8);
      return buf.getLong();
    }

    String string(String field, int maxBytes) {
      long length = Integer.toUnsignedLong(i32(field));
      if (length > maxBytes) {
        throw new InvalidRecordException(
            "encoding", field + " length: got " + length + " bytes, want at most " + maxBytes);
      }
      need(field, (int) length);
      int start = buf.position();
      buf.position(start + (int) length);
      try {
        return StrictUtf8.decode(buf.array(), start, (int) length);
      } catch (CharacterCodingException e) {
        throw new InvalidRecordException(
            field,
            field + ": got invalid UTF-8 (" + e.getMessage() + "), want well-formed UTF-8",
            e);
      }
    }

    private void need(String field, int n) {
      if (buf.remaining() < n) {
        throw new InvalidRecordException(
            "encoding",
            field
                + ": got "
                + buf.remaining()
                + " bytes left, want "
                + n
                + " (truncated canonical record)");
      }
    }
  }
}
