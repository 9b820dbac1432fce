package dev.danmakuledger.protocol.record;

import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.Quote;
import dev.danmakuledger.protocol.key.IdempotencyKey;

/**
 * One danmaku as captured by a device and appended to its log (docs/architecture.md §3). Its leaf
 * in the device's RFC 6962 tree is {@link #canonicalBytes()}, format in docs/canonical-record.md.
 *
 * @param key the idempotency key; its deviceId and userId equal {@code deviceId} and {@code user}
 * @param deviceId the capturing device, {@code [A-Za-z0-9_-]{1,64}}
 * @param room the room, {@code [A-Za-z0-9_.-]{1,64}}
 * @param user the posting user, {@code [A-Za-z0-9_-]{1,64}}
 * @param text 1..300 code points, see {@link TextRules}
 * @param playbackMs position in the video in milliseconds, or null for live chat; {@code >= 0}
 * @param mode Bilibili display mode, 1..8
 * @param color RGB colour, 0..0xFFFFFF
 * @param fontSize font size, 1..255
 * @param hlc the capture hybrid logical clock, packed, {@code >= 0}
 * @param index the position in the device log, {@code >= 0}
 * @param blind the per-record random value of a version 2 record, or null for a version 1 record
 *     (docs/canonical-record.md, "Version 2: blinded leaves")
 */
public record DanmakuRecord(
    IdempotencyKey key,
    String deviceId,
    String room,
    String user,
    String text,
    Long playbackMs,
    int mode,
    int color,
    int fontSize,
    long hlc,
    long index,
    Blind blind) {

  static final int MAX_ROOM_LENGTH = 64;

  /**
   * Validates every field.
   *
   * @throws InvalidRecordException naming the first bad field
   */
  public DanmakuRecord {
    if (key == null) {
      throw new InvalidRecordException("key", "key: got null, want an idempotency key");
    }
    if (!IdempotencyKey.isValidId(deviceId)) {
      throw new InvalidRecordException(
          "deviceId", "deviceId: got " + Quote.of(deviceId) + ", want 1 to 64 of [A-Za-z0-9_-]");
    }
    if (!key.deviceId().equals(deviceId)) {
      throw new InvalidRecordException(
          "key",
          "key deviceId: got "
              + Quote.of(key.deviceId())
              + ", want the capturing device "
              + Quote.of(deviceId));
    }
    if (!isValidRoom(room)) {
      throw new InvalidRecordException(
          "room", "room: got " + Quote.of(room) + ", want 1 to 64 of [A-Za-z0-9_.-]");
    }
    if (!IdempotencyKey.isValidId(user)) {
      throw new InvalidRecordException(
          "user", "user: got " + Quote.of(user) + ", want 1 to 64 of [A-Za-z0-9_-]");
    }
    if (!key.userId().equals(user)) {
      throw new InvalidRecordException(
          "key",
          "key userId: got "
              + Quote.of(key.userId())
              + ", want the posting user "
              + Quote.of(user));
    }
    TextRules.check(text);
    if (playbackMs != null && playbackMs < 0) {
      throw new InvalidRecordException(
          "playbackMs", "playbackMs: got " + playbackMs + ", want null or >= 0");
    }
    if (mode < 1 || mode > 8) {
      throw new InvalidRecordException("mode", "mode: got " + mode + ", want 1..8");
    }
    if (color < 0 || color > 0xFFFFFF) {
      throw new InvalidRecordException(
          "color", "color: got " + color + ", want 0..16777215 (0xFFFFFF)");
    }
    if (fontSize < 1 || fontSize > 255) {
      throw new InvalidRecordException("fontSize", "fontSize: got " + fontSize + ", want 1..255");
    }
    if (hlc < 0) {
      throw new InvalidRecordException("hlc", "hlc: got " + hlc + ", want >= 0");
    }
    if (index < 0) {
      throw new InvalidRecordException("index", "index: got " + index + ", want >= 0");
    }
  }

  /** A version 1 record (without a blind): see the canonical constructor. */
  public DanmakuRecord(
      IdempotencyKey key,
      String deviceId,
      String room,
      String user,
      String text,
      Long playbackMs,
      int mode,
      int color,
      int fontSize,
      long hlc,
      long index) {
    this(key, deviceId, room, user, text, playbackMs, mode, color, fontSize, hlc, index, null);
  }

  /** The format version of its canonical bytes: 2 with a blind, else 1. */
  public int version() {
    return blind == null ? 1 : 2;
  }

  /** A copy with {@code blind}: a version 2 record (or, with null, a version 1 record). */
  public DanmakuRecord withBlind(Blind blind) {
    return new DanmakuRecord(
        key, deviceId, room, user, text, playbackMs, mode, color, fontSize, hlc, index, blind);
  }

  /** Returns true if {@code room} is a valid room name, {@code [A-Za-z0-9_.-]{1,64}}. */
  public static boolean isValidRoom(String room) {
    if (room == null || room.isEmpty() || room.length() > MAX_ROOM_LENGTH) {
      return false;
    }
    for (int i = 0; i < room.length(); i++) {
      char c = room.charAt(i);
      boolean ok =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '.'
              || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * Returns true if {@code room} is a valid room name that a URL path can also address: not {@code
   * .} or {@code ..}, which clients remove from paths as dot-segments (RFC 3986 §5.2.4), so {@code
   * /v1/rooms/../log} would never reach the room. New captures use only such rooms; records of such
   * rooms captured before stay decodable.
   */
  public static boolean isAddressableRoom(String room) {
    return isValidRoom(room) && !room.equals(".") && !room.equals("..");
  }

  /**
   * Refuses a room a new capture cannot use (see {@link #isAddressableRoom}).
   *
   * @throws InvalidRecordException naming the field {@code room}
   */
  public static void checkAddressableRoom(String room) {
    if (!isValidRoom(room)) {
      throw new InvalidRecordException(
          "room", "room: got " + Quote.of(room) + ", want 1 to 64 of [A-Za-z0-9_.-]");
    }
    if (!isAddressableRoom(room)) {
      throw new InvalidRecordException(
          "room",
          "room: got "
              + Quote.of(room)
              + ", want a name other than \".\" and \"..\" (URL paths drop them as dot-segments,"
              + " so no client could read the room)");
    }
  }

  /** Returns the canonical bytes, format version {@link #version()} (docs/canonical-record.md). */
  public byte[] canonicalBytes() {
    return CanonicalRecord.encode(this);
  }

  /**
   * Returns the canonical bytes of {@link #withIndexAndHlc withIndexAndHlc(index, hlc)} without
   * building and revalidating that copy; the fields of this record are already valid.
   *
   * @throws InvalidRecordException if {@code index} or {@code hlc} is negative
   */
  public byte[] canonicalBytesAt(long index, long hlc) {
    CanonicalRecord.checkPlace(index, hlc);
    return CanonicalRecord.encodeAt(this, index, hlc);
  }

  /** Returns the RFC 6962 leaf hash of the canonical bytes, SHA-256(0x00 || bytes). */
  public byte[] leafHash() {
    return Rfc6962.leafHash(canonicalBytes());
  }

  /**
   * Returns the lowercase hex SHA-256 of the content encoding (docs/canonical-record.md, "Content
   * hash"): deviceId, room, user, text, playbackMs, mode, color and fontSize, but not the key, hlc
   * or index. Two records with the same key and the same content hash are duplicates; with
   * different content hashes they conflict.
   */
  public String contentHash() {
    return EncodedRecord.hashOf(CanonicalRecord.encodeContent(this));
  }

  /** Its key and content encoded once, for its content hash and its bytes at a log index. */
  public EncodedRecord encoded() {
    return EncodedRecord.of(this);
  }

  /** Returns a copy placed at {@code index} of the device log with capture clock {@code hlc}. */
  public DanmakuRecord withIndexAndHlc(long index, long hlc) {
    return new DanmakuRecord(
        key, deviceId, room, user, text, playbackMs, mode, color, fontSize, hlc, index, blind);
  }
}
