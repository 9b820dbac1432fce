package dev.danmakuledger.server.storage;

import dev.danmakuledger.protocol.StrictUtf8;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.wire.Outcome;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The bytes of one {@code device_bundles} row (docs/architecture.md §6, "Device log storage"):
 * consecutive records of one device log with the outcomes the server gave them. Version 2 layout,
 * all integers big-endian:
 *
 * <pre>
 *   u8 version (2), u32 count, then per record:
 *   u8 outcome (CONFIRMED 0, PENDING 1, DUPLICATE 2, CONFLICT 3, REJECTED 4),
 *   u8 flags (bit 0: the idempotency key is the record's own, bit 1: the room is the record's own),
 *   u32 length + canonical bytes (the Merkle leaf, exactly as sent),
 *   text idempotency key (only without flag bit 0), text room (only without flag bit 1),
 *   long seq, long message id, text original status, text reason
 * </pre>
 *
 * where a text is {@code u16 length + UTF-8} or {@code 0xFFFF} for null, and a long is {@code u8 0}
 * for null or {@code u8 1 + i64}. A flag bit stands for a field the canonical bytes already hold
 * (fields 2 and 4 of docs/canonical-record.md): a stored message, a duplicate in the room of its
 * original; the other outcomes carry the original's room, and a rejected record's bytes may hold no
 * key at all. Version 1 rows (no flags byte, key and room always written) are still read. Decoding
 * refuses anything else: a row that does not decode to exactly the records its index range names is
 * damaged (a server fault, never the client's).
 */
public final class RecordBundle {
  /** Most records in one row, as in a C2SP tlog-tiles entry bundle. */
  public static final int MAX_RECORDS = 256;

  /**
   * Bytes at which a row is closed before it reaches {@link #MAX_RECORDS}; a single record larger
   * than this (a rejected oversized record, bounded by the request body limit) gets a row of its
   * own.
   */
  static final int CLOSE_AT_BYTES = 1 << 20;

  /** Key and room written out for every record. */
  private static final int VERSION_1 = 1;

  /** A flags byte per record; key and room written only where the canonical bytes lack them. */
  private static final int VERSION_2 = 2;

  private static final int KEY_OF_RECORD = 1;
  private static final int ROOM_OF_RECORD = 2;
  private static final int NULL_TEXT = 0xFFFF;
  private static final Outcome[] OUTCOMES = {
    Outcome.CONFIRMED, Outcome.PENDING, Outcome.DUPLICATE, Outcome.CONFLICT, Outcome.REJECTED
  };

  private RecordBundle() {}

  /**
   * Splits records with consecutive indices into rows of at most {@link #MAX_RECORDS} records,
   * closing a row early once it holds {@link #CLOSE_AT_BYTES} of canonical bytes.
   */
  public static List<List<DeviceRecordRow>> split(List<DeviceRecordRow> records) {
    List<List<DeviceRecordRow>> rows = new ArrayList<>();
    int from = 0;
    long bytes = 0;
    for (int i = 0; i < records.size(); i++) {
      int size = records.get(i).canonical().length;
      if (i > from && (i - from == MAX_RECORDS || bytes + size > CLOSE_AT_BYTES)) {
        rows.add(records.subList(from, i));
        from = i;
        bytes = 0;
      }
      bytes += size;
    }
    if (from < records.size()) {
      rows.add(records.subList(from, records.size()));
    }
    return rows;
  }

  /** Encodes records with consecutive indices (at most {@link #MAX_RECORDS}). */
  public static byte[] encode(List<DeviceRecordRow> records) {
    if (records.isEmpty() || records.size() > MAX_RECORDS) {
      throw new IllegalArgumentException(
          "records: got " + records.size() + ", want 1.." + MAX_RECORDS);
    }
    int estimate = 5;
    for (DeviceRecordRow r : records) {
      estimate += r.canonical().length + 160;
    }
    Out out = new Out(estimate);
    out.u8(VERSION_2);
    out.u32(records.size());
    long index = records.get(0).index();
    for (DeviceRecordRow r : records) {
      if (r.index() != index++) {
        throw new IllegalArgumentException(
            "records: got index " + r.index() + ", want " + (index - 1) + " (consecutive)");
      }
      RecordFields own = RecordFields.of(r.canonical());
      int flags =
          (own.isKey(r.idempotencyKey()) ? KEY_OF_RECORD : 0)
              | (own.isRoom(r.room()) ? ROOM_OF_RECORD : 0);
      out.u8(code(r.outcome()));
      out.u8(flags);
      out.u32(r.canonical().length);
      out.bytes(r.canonical());
      if ((flags & KEY_OF_RECORD) == 0) {
        out.text(r.idempotencyKey());
      }
      if ((flags & ROOM_OF_RECORD) == 0) {
        out.text(r.room());
      }
      out.optionalLong(r.seq());
      out.optionalLong(r.messageId());
      out.text(r.originalStatus());
      out.text(r.reason());
    }
    return out.toByteArray();
  }

  /**
   * Decodes a row of {@code deviceId} holding records {@code [firstIndex, endIndex)}.
   *
   * @throws DamagedRowException if the bytes are not exactly those records
   */
  static List<DeviceRecordRow> decode(
      String deviceId, long firstIndex, long endIndex, byte[] data) {
    In in = new In(deviceId, firstIndex, data);
    int version = in.header(endIndex);
    int count = (int) (endIndex - firstIndex);
    List<DeviceRecordRow> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int outcome = in.outcome();
      int flags = in.flags(version);
      byte[] canonical = in.bytes(in.u32());
      RecordFields own = flags == 0 ? null : RecordFields.of(canonical);
      String key = (flags & KEY_OF_RECORD) != 0 ? in.own(own.key(), "key") : in.text();
      String room = (flags & ROOM_OF_RECORD) != 0 ? in.own(own.room(), "room") : in.text();
      out.add(
          new DeviceRecordRow(
              deviceId,
              firstIndex + i,
              key,
              canonical,
              OUTCOMES[outcome],
              room,
              in.optionalLong(),
              in.optionalLong(),
              in.text(),
              in.text()));
    }
    in.end();
    return out;
  }

  /**
   * The canonical bytes of the records of {@code wanted} that a row of {@code deviceId} holding
   * records {@code [firstIndex, endIndex)} holds, by index: what a room log's leaf needs, without
   * decoding the other fields or the other records (their framing is still checked).
   *
   * @throws DamagedRowException if the bytes are not framed as exactly those records
   */
  static Map<Long, byte[]> canonicals(
      String deviceId, long firstIndex, long endIndex, byte[] data, Set<Long> wanted) {
    In in = new In(deviceId, firstIndex, data);
    int version = in.header(endIndex);
    Map<Long, byte[]> out = new HashMap<>();
    for (long index = firstIndex; index < endIndex; index++) {
      in.outcome();
      int flags = in.flags(version);
      long length = in.u32();
      if (wanted.contains(index)) {
        out.put(index, in.bytes(length));
      } else {
        in.skip(length);
      }
      if ((flags & KEY_OF_RECORD) == 0) {
        in.skipText();
      }
      if ((flags & ROOM_OF_RECORD) == 0) {
        in.skipText();
      }
      in.optionalLong();
      in.optionalLong();
      in.skipText();
      in.skipText();
    }
    in.end();
    return out;
  }

  private static int code(Outcome outcome) {
    for (int i = 0; i < OUTCOMES.length; i++) {
      if (OUTCOMES[i] == outcome) {
        return i;
      }
    }
    throw new IllegalArgumentException("outcome: got " + outcome + ", want one with a code");
  }

  /** An unsynchronised growing buffer (ByteArrayOutputStream locks on every byte written). */
  private static final class Out {
    private byte[] buf;
    private int size;

    Out(int capacity) {
      buf = new byte[Math.max(16, capacity)];
    }

    private void room(int n) {
      if (size + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(size + n, buf.length * 2));
      }
    }

    void u8(int v) {
      room(1);
      buf[size++] = (byte) v;
    }

    void u16(int v) {
      room(2);
      buf[size++] = (byte) (v >>> 8);
      buf[size++] = (byte) v;
    }

    void u32(long v) {
      room(4);
      for (int shift = 24; shift >= 0; shift -= 8) {
        buf[size++] = (byte) (v >>> shift);
      }
    }

    void bytes(byte[] b) {
      room(b.length);
      System.arraycopy(b, 0, buf, size, b.length);
      size += b.length;
    }

    void text(String s) {
      if (s == null) {
        u16(NULL_TEXT);
        return;
      }
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      if (b.length >= NULL_TEXT) {
        throw new IllegalArgumentException("text: got " + b.length + " bytes, want < 65535");
      }
      u16(b.length);
      bytes(b);
    }

    void optionalLong(Long v) {
      if (v == null) {
        u8(0);
        return;
      }
      u8(1);
      u32(v >>> 32);
      u32(v & 0xFFFFFFFFL);
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, size);
    }
  }

  private static final class In {
    private final String deviceId;
    private final long firstIndex;
    private final ByteBuffer buf;

    In(String deviceId, long firstIndex, byte[] data) {
      this.deviceId = deviceId;
      this.firstIndex = firstIndex;
      this.buf = ByteBuffer.wrap(data);
    }

    DamagedRowException damaged(String what) {
      return new DamagedRowException(
          "device_bundles",
          "(" + deviceId + ", " + firstIndex + ")",
          "got " + what + " at byte " + buf.position());
    }

    /**
     * Reads the version and count; the count must be {@code endIndex - firstIndex}.
     *
     * @return the version
     */
    int header(long endIndex) {
      int version = u8();
      if (version != VERSION_1 && version != VERSION_2) {
        throw damaged("version " + version + ", want " + VERSION_1 + " or " + VERSION_2);
      }
      long count = u32();
      if (count < 1 || count > MAX_RECORDS || count != endIndex - firstIndex) {
        throw damaged(
            "count " + count + ", want " + (endIndex - firstIndex) + " (1.." + MAX_RECORDS + ")");
      }
      return version;
    }

    /** A record's outcome code. */
    int outcome() {
      int outcome = u8();
      if (outcome >= OUTCOMES.length) {
        throw damaged("outcome " + outcome);
      }
      return outcome;
    }

    /** A record's flags: none in version 1. */
    int flags(int version) {
      int flags = version == VERSION_1 ? 0 : u8();
      if ((flags & ~(KEY_OF_RECORD | ROOM_OF_RECORD)) != 0) {
        throw damaged("flags " + flags);
      }
      return flags;
    }

    /** Damage unless the row ends here. */
    void end() {
      if (buf.remaining() != 0) {
        throw damaged(buf.remaining() + " bytes after the last record");
      }
    }

    void skip(long n) {
      need(n);
      buf.position(buf.position() + (int) n);
    }

    /** Skips a text without decoding it. */
    void skipText() {
      int n = u16();
      if (n != NULL_TEXT) {
        skip(n);
      }
    }

    private void need(long n) {
      if (n > buf.remaining()) {
        throw damaged("the row cut short (" + n + " bytes wanted, " + buf.remaining() + " left)");
      }
    }

    int u8() {
      need(1);
      return buf.get() & 0xFF;
    }

    int u16() {
      need(2);
      return buf.getShort() & 0xFFFF;
    }

    long u32() {
      need(4);
      return buf.getInt() & 0xFFFFFFFFL;
    }

    byte[] bytes(long n) {
      need(n);
      byte[] b = new byte[(int) n];
      buf.get(b);
      return b;
    }

    String text() {
      int n = u16();
      if (n == NULL_TEXT) {
        return null;
      }
      need(n);
      int start = buf.position();
      buf.position(start + n);
      try {
        return StrictUtf8.decode(buf.array(), buf.arrayOffset() + start, n);
      } catch (CharacterCodingException e) {
        throw damaged("text that is not UTF-8");
      }
    }

    /** A field the flags say the canonical bytes hold; damage if they hold none. */
    String own(String field, String name) {
      if (field == null) {
        throw damaged("a flag for the record's own " + name + ", which its bytes do not hold");
      }
      return field;
    }

    Long optionalLong() {
      int flag = u8();
      if (flag == 0) {
        return null;
      }
      if (flag != 1) {
        throw damaged("long flag " + flag);
      }
      need(8);
      return buf.getLong();
    }
  }

  /**
   * The idempotency key and room read from a record's canonical bytes (fields 2 and 4 of
   * docs/canonical-record.md) without checking the rest: each is null where the bytes do not hold
   * the field as strict UTF-8 (a rejected record's bytes may be anything).
   */
  private record RecordFields(String key, String room) {
    private static final RecordFields NONE = new RecordFields(null, null);

    static RecordFields of(byte[] canonical) {
      if (canonical.length < 1 || canonical[0] != CanonicalRecord.VERSION_1) {
        return NONE;
      }
      ByteBuffer b = ByteBuffer.wrap(canonical, 1, canonical.length - 1);
      String key = string(b);
      if (key == null || skip(b) < 0) {
        return new RecordFields(key, null);
      }
      return new RecordFields(key, string(b));
    }

    boolean isKey(String k) {
      return key != null && key.equals(k);
    }

    boolean isRoom(String r) {
      return room != null && room.equals(r);
    }

    /** Skips one {@code string} field; -1 if the bytes end first. */
    private static int skip(ByteBuffer b) {
      int n = length(b);
      if (n < 0) {
        return -1;
      }
      b.position(b.position() + n);
      return n;
    }

    private static String string(ByteBuffer b) {
      int start = b.position() + 4;
      int n = length(b);
      if (n < 0) {
        return null;
      }
      b.position(start + n);
      try {
        return StrictUtf8.decode(b.array(), start, n);
      } catch (CharacterCodingException e) {
        return null;
      }
    }

    /** The length of the next {@code string} field, -1 unless the buffer holds all of it. */
    private static int length(ByteBuffer b) {
      if (b.remaining() < 4) {
        return -1;
      }
      long n = b.getInt() & 0xFFFFFFFFL;
      if (n > b.remaining()) {
        return -1;
      }
      return (int) n;
    }
  }
}
