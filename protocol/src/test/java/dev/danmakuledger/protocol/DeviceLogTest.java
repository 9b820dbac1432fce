package dev.danmakuledger.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DeviceLogTest {
  @Test
  void originNamesTheDevice() {
    assertEquals("danmaku-ledger/device/kiosk-01", DeviceLog.origin("kiosk-01"));
  }

  @Test
  void rejectsDeviceIdsThatWouldBreakTheOriginLine() {
    for (String bad : new String[] {"", "a\nb", "a b", "a/b", "x".repeat(65)}) {
      assertThrows(IllegalArgumentException.class, () -> DeviceLog.origin(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> DeviceLog.origin(null));
  }

  @Test
  void quoteBoundsAndEscapesUntrustedText() {
    assertEquals("null", Quote.of(null));
    assertEquals("\"a\\\"b\"", Quote.of("a\"b"));
    assertEquals("\"\\u000A\\u202E\"", Quote.of("\n\u202e"));
    assertEquals("\"" + "x".repeat(40) + "\"...", Quote.of("x".repeat(1000)));
    assertEquals("\"\\uD83D\"", Quote.of("\uD83D"));
  }
}
