package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.Outcome;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The {@code device_bundles} row layout: exact round trips, and damage refused, never guessed. */
final class RecordBundleTest {
  static DeviceRecordRow row(long index, Outcome outcome, int size) {
    byte[] canonical = new byte[size];
    Arrays.fill(canonical, (byte) index);
    return switch (outcome) {
      case CONFIRMED, PENDING ->
          new DeviceRecordRow(
              "kiosk", index, "key-" + index, canonical, outcome, "房间", index + 1, 7L, null, null);
      case DUPLICATE ->
          new DeviceRecordRow(
              "kiosk", index, "key-0", canonical, outcome, "r", 1L, 7L, "CONFIRMED", null);
      case CONFLICT ->
          new DeviceRecordRow(
              "kiosk", index, "key-0", canonical, outcome, "r", 1L, 7L, "PENDING", "conflict 😀");
      case REJECTED ->
          new DeviceRecordRow(
              "kiosk", index, null, canonical, outcome, null, null, null, null, "x");
    };
  }

  static List<DeviceRecordRow> rows(long first, int n) {
    List<DeviceRecordRow> out = new ArrayList<>();
    Outcome[] all = Outcome.values();
    for (int i = 0; i < n; i++) {
      out.add(row(first + i, all[i % all.length], 1 + (i * 37) % 300));
    }
    return out;
  }

  static void assertSameRows(List<DeviceRecordRow> want, List<DeviceRecordRow> got) {
    assertEquals(want.size(), got.size());
    for (int i = 0; i < want.size(); i++) {
      DeviceRecordRow w = want.get(i);
      DeviceRecordRow g = got.get(i);
      assertArrayEquals(w.canonical(), g.canonical(), "canonical of " + w.index());
      assertEquals(
          new DeviceRecordRow(
              w.deviceId(),
              w.index(),
              w.idempotencyKey(),
              g.canonical(),
              w.outcome(),
              w.room(),
              w.seq(),
              w.messageId(),
              w.originalStatus(),
              w.reason()),
          g,
          "record " + w.index());
    }
  }

  @Test
  void everyFieldRoundTrips() {
    List<DeviceRecordRow> rows = rows(1_000, 256);
    assertSameRows(rows, RecordBundle.decode("kiosk", 1_000, 1_256, RecordBundle.encode(rows)));
  }

  @Test
  void canonicalsReadsOnlyTheWantedRecordsAsDecodeWouldGiveThem() {
    List<DeviceRecordRow> rows = rows(1_000, 256);
    byte[] data = RecordBundle.encode(rows);
    Set<Long> wanted = Set.of(1_000L, 1_001L, 1_128L, 1_255L, 999L, 1_256L, 5L);
    Map<Long, byte[]> got = RecordBundle.canonicals("kiosk", 1_000, 1_256, data, wanted);
    assertEquals(
        Set.of(1_000L, 1_001L, 1_128L, 1_255L), got.keySet(), "only indices the row holds");
    for (Map.Entry<Long, byte[]> e : got.entrySet()) {
      assertArrayEquals(rows.get((int) (e.getKey() - 1_000)).canonical(), e.getValue());
    }
    assertEquals(Map.of(), RecordBundle.canonicals("kiosk", 1_000, 1_256, data, Set.of()));
  }

  @Test
  void canonicalsRefusesEveryTruncationTrailingBytesAndAWrongCount() {
    byte[] data = RecordBundle.encode(rows(5, 6));
    for (int n = 0; n < data.length; n++) {
      byte[] cut = Arrays.copyOf(data, n);
      assertThrows(
          DamagedRowException.class,
          () -> RecordBundle.canonicals("kiosk", 5, 11, cut, Set.of(5L)),
          "cut at " + n);
    }
    byte[] longer = Arrays.copyOf(data, data.length + 1);
    assertThrows(
        DamagedRowException.class,
        () -> RecordBundle.canonicals("kiosk", 5, 11, longer, Set.of(5L)));
    assertThrows(
        DamagedRowException.class, () -> RecordBundle.canonicals("kiosk", 5, 12, data, Set.of(5L)));
  }

  @Test
  void emptyOversizedAndNonConsecutiveRunsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> RecordBundle.encode(List.of()));
    assertThrows(IllegalArgumentException.class, () -> RecordBundle.encode(rows(0, 257)));
    List<DeviceRecordRow> gap = new ArrayList<>(rows(0, 3));
    gap.remove(1);
    assertThrows(IllegalArgumentException.class, () -> RecordBundle.encode(gap));
  }

  @Test
  void batchesSplitAt256RecordsAndAtAMegabyte() {
    List<List<DeviceRecordRow>> byCount = RecordBundle.split(rows(0, 600));
    assertEquals(List.of(256, 256, 88), byCount.stream().map(List::size).toList());
    assertEquals(256, byCount.get(1).get(0).index());

    List<DeviceRecordRow> big = new ArrayList<>();
    big.add(row(0, Outcome.CONFIRMED, 10));
    big.add(row(1, Outcome.REJECTED, RecordBundle.CLOSE_AT_BYTES + 5));
    big.add(row(2, Outcome.CONFIRMED, RecordBundle.CLOSE_AT_BYTES / 2));
    big.add(row(3, Outcome.CONFIRMED, RecordBundle.CLOSE_AT_BYTES / 2));
    big.add(row(4, Outcome.CONFIRMED, 10));
    assertEquals(List.of(1, 1, 2, 1), RecordBundle.split(big).stream().map(List::size).toList());
    assertEquals(List.of(), RecordBundle.split(List.of()));
  }

  @Test
  void everyTruncationIsDamage() {
    byte[] data = RecordBundle.encode(rows(5, 6));
    for (int n = 0; n < data.length; n++) {
      byte[] cut = Arrays.copyOf(data, n);
      DamagedRowException e =
          assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 5, 11, cut));
      assertTrue(e.getMessage().contains("(kiosk, 5) is damaged"), e.getMessage());
      assertEquals("device_bundles", e.table());
      assertEquals("(kiosk, 5)", e.key());
    }
  }

  @Test
  void trailingBytesAWrongCountAndAWrongVersionAreDamage() {
    byte[] data = RecordBundle.encode(rows(0, 3));
    byte[] longer = Arrays.copyOf(data, data.length + 1);
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 3, longer));
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 4, data));
    byte[] version = data.clone();
    version[0] = 3;
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 3, version));
  }

  @Test
  void hostileLengthsOutcomesFlagsAndTextAreDamage() {
    // version 1, count 1, outcome 0, canonical length 2^32 - 1: refused before any allocation
    byte[] huge = ByteBuffer.allocate(10).put((byte) 1).putInt(1).put((byte) 0).putInt(-1).array();
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 1, huge));

    byte[] outcome = ByteBuffer.allocate(6).put((byte) 1).putInt(1).put((byte) 9).array();
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 1, outcome));

    byte[] count = ByteBuffer.allocate(5).put((byte) 1).putInt(300).array();
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 300, count));

    DeviceRecordRow one =
        new DeviceRecordRow(
            "kiosk", 0, "k", new byte[] {1}, Outcome.CONFIRMED, "r", null, null, null, null);
    byte[] data = RecordBundle.encode(List.of(one));
    // layout: version, count, outcome, flags, u32 1, byte, u16 1, 'k', u16 1, 'r', seq flag, ...
    int seqFlag = 1 + 4 + 1 + 1 + 4 + 1 + 2 + 1 + 2 + 1;
    assertEquals(0, data[seqFlag]);
    byte[] flag = data.clone();
    flag[seqFlag] = 2;
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 1, flag));
    byte[] text = data.clone();
    text[seqFlag - 1] = (byte) 0xC3; // the room "r" becomes a lone UTF-8 lead byte
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 1, text));
  }

  /** A real record of {@code room}: its canonical bytes hold its key and room. */
  static DanmakuRecord record(long index, String room) {
    IdempotencyKey key =
        IdempotencyKey.parse("kiosk:u7:1764547200000:" + "0123456789abcdef".repeat(2));
    return new DanmakuRecord(key, "kiosk", room, "u7", "弹幕 " + index, null, 1, 0, 25, 5, index);
  }

  /** Stored, a duplicate in the same room, one in another room, and a rejected record. */
  static List<DeviceRecordRow> ownRows() {
    DanmakuRecord a = record(0, "room.a");
    DanmakuRecord b = record(1, "room.a");
    DanmakuRecord c = record(2, "room.c");
    String key = a.key().toString();
    return List.of(
        new DeviceRecordRow(
            "kiosk",
            0,
            key,
            CanonicalRecord.encode(a),
            Outcome.CONFIRMED,
            "room.a",
            1L,
            9L,
            null,
            null),
        new DeviceRecordRow(
            "kiosk",
            1,
            key,
            CanonicalRecord.encode(b),
            Outcome.DUPLICATE,
            "room.a",
            1L,
            9L,
            "CONFIRMED",
            null),
        new DeviceRecordRow(
            "kiosk",
            2,
            key,
            CanonicalRecord.encode(c),
            Outcome.CONFLICT,
            "room.a",
            1L,
            9L,
            "CONFIRMED",
            "key-reused-with-different-content"),
        rejected(3));
  }

  /** A rejected record whose bytes end before its key's length. */
  static DeviceRecordRow rejected(long index) {
    return new DeviceRecordRow(
        "kiosk",
        index,
        null,
        new byte[] {1, 0, 0},
        Outcome.REJECTED,
        null,
        null,
        null,
        null,
        "malformed");
  }

  @Test
  void keysAndRoomsTheCanonicalBytesHoldAreNotWrittenTwice() {
    List<DeviceRecordRow> rows = ownRows();
    byte[] data = RecordBundle.encode(rows);
    assertSameRows(rows, RecordBundle.decode("kiosk", 0, 4, data));

    assertEquals(2, data[0]);
    int[] flags = {3, 3, 1, 0};
    int at = 5;
    for (int i = 0; i < rows.size(); i++) {
      DeviceRecordRow r = rows.get(i);
      assertEquals(flags[i], data[at + 1], "flags of record " + i);
      at += 1 + 1 + 4 + r.canonical().length;
      if ((flags[i] & 1) == 0) {
        at += textBytes(r.idempotencyKey());
      }
      if ((flags[i] & 2) == 0) {
        at += textBytes(r.room());
      }
      at += (r.seq() == null ? 1 : 9) + (r.messageId() == null ? 1 : 9);
      at += textBytes(r.originalStatus()) + textBytes(r.reason());
    }
    assertEquals(data.length, at, "every byte accounted for");
  }

  private static int textBytes(String s) {
    return 2 + (s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length);
  }

  @Test
  void versionOneRowsAreStillRead() {
    DeviceRecordRow stored = ownRows().get(0);
    DeviceRecordRow rejected = rejected(1);
    byte[] key = stored.idempotencyKey().getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(200 + stored.canonical().length);
    b.put((byte) 1).putInt(2);
    b.put((byte) 0).putInt(stored.canonical().length).put(stored.canonical());
    b.putShort((short) key.length)
        .put(key)
        .putShort((short) 6)
        .put("room.a".getBytes(StandardCharsets.US_ASCII));
    b.put((byte) 1).putLong(1).put((byte) 1).putLong(9).putShort((short) -1).putShort((short) -1);
    b.put((byte) 4).putInt(3).put(rejected.canonical());
    b.putShort((short) -1).putShort((short) -1).put((byte) 0).put((byte) 0).putShort((short) -1);
    b.putShort((short) 9).put("malformed".getBytes(StandardCharsets.US_ASCII));
    byte[] v1 = Arrays.copyOf(b.array(), b.position());
    assertSameRows(List.of(stored, rejected), RecordBundle.decode("kiosk", 0, 2, v1));
  }

  @Test
  void flagsTheBytesCannotBackAreDamage() {
    byte[] data = RecordBundle.encode(ownRows().subList(0, 1));
    int flagsAt = 6;
    assertEquals(3, data[flagsAt]);
    byte[] unknown = data.clone();
    unknown[flagsAt] = 4;
    DamagedRowException e =
        assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 1, unknown));
    assertTrue(e.getMessage().contains("flags 4"), e.getMessage());

    // the key's first byte (after the version byte and its u32 length) made a lone UTF-8 lead byte
    byte[] badKey = data.clone();
    badKey[flagsAt + 1 + 4 + 1 + 4] = (byte) 0xC3;
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 1, badKey));

    // a rejected record whose bytes hold no key, flagged as if they did
    byte[] none = RecordBundle.encode(ownRows().subList(3, 4));
    none[flagsAt] = 1;
    e = assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 3, 4, none));
    assertTrue(e.getMessage().contains("own key"), e.getMessage());
  }

  @Test
  void everyTruncationOfFlaggedRecordsIsDamage() {
    byte[] data = RecordBundle.encode(ownRows());
    for (int n = 0; n < data.length; n++) {
      byte[] cut = Arrays.copyOf(data, n);
      assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 4, cut));
    }
  }
}
