package dev.danmakuledger.server.roomlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.protocol.key.MalformedKeyException;
import dev.danmakuledger.protocol.room.RoomLogEntry;
import dev.danmakuledger.server.storage.LogSlot;
import dev.danmakuledger.server.storage.MessageStatus;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A slot's entry bytes, written from its fields, are the bytes of the entry built from them. */
final class SlotEntriesTest {
  static final String KEY = "kiosk-01:alice:1732953600000:00112233445566778899aabbccddeeff";

  static byte[] leaf() {
    byte[] leaf = new byte[32];
    Arrays.fill(leaf, (byte) 0xA7);
    leaf[0] = 0x01;
    return leaf;
  }

  static LogSlot message(String deviceId, String key, byte[] leaf) {
    return new LogSlot(
        12, MessageStatus.CONFIRMED, null, 253671505920020497L, deviceId, 41L, key, leaf);
  }

  @Test
  void aMessageAndATombstoneAreTheBytesOfTheirEntries() {
    LogSlot m = message("kiosk-01", KEY, leaf());
    byte[] bytes = SlotEntries.encoded(m).orElseThrow();
    assertArrayEquals(SlotEntries.of(m).orElseThrow().encode(), bytes);
    assertEquals(
        "v1 12 M 253671505920020497 kiosk-01 41 01" + "a7".repeat(31) + " " + KEY,
        new String(bytes, StandardCharsets.US_ASCII));
    assertArrayEquals(
        RoomLogEntry.parse(bytes).encode(), bytes, "an auditor parses it back to the same bytes");
    LogSlot t = new LogSlot(5, MessageStatus.TOMBSTONE, "gap-sealed", null, null, null, null, null);
    assertArrayEquals(
        SlotEntries.of(t).orElseThrow().encode(), SlotEntries.encoded(t).orElseThrow());
  }

  @Test
  void aSlotWithoutItsDeviceRecordHasNoEntryYet() {
    assertEquals(Optional.empty(), SlotEntries.encoded(message("kiosk-01", KEY, null)));
    assertEquals(Optional.empty(), SlotEntries.encoded(message(null, KEY, leaf())));
  }

  @Test
  void aDamagedStoredKeyIsRefusedAsTheEntryRefusesIt() {
    assertThrows(
        MalformedKeyException.class,
        () -> SlotEntries.encoded(message("kiosk-01", "kiosk-01:alice:17329536:00", leaf())));
    IllegalArgumentException other =
        assertThrows(
            IllegalArgumentException.class,
            () -> SlotEntries.encoded(message("kiosk-02", KEY, leaf())));
    assertEquals(
        other.getMessage(),
        assertThrows(
                IllegalArgumentException.class,
                () -> SlotEntries.of(message("kiosk-02", KEY, leaf())))
            .getMessage());
  }
}
