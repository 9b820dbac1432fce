package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.Outcome;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
    version[0] = 2;
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
    // layout: version, count, outcome, u32 1, byte, u16 1, 'k', u16 1, 'r', seq flag, ...
    int seqFlag = 1 + 4 + 1 + 4 + 1 + 2 + 1 + 2 + 1;
    assertEquals(0, data[seqFlag]);
    byte[] flag = data.clone();
    flag[seqFlag] = 2;
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 1, flag));
    byte[] text = data.clone();
    text[seqFlag - 1] = (byte) 0xC3; // the room "r" becomes a lone UTF-8 lead byte
    assertThrows(DamagedRowException.class, () -> RecordBundle.decode("kiosk", 0, 1, text));
  }
}
