package dev.danmakuledger.ui.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class FormatTest {
  @Test
  void skewReadsAtEveryScale() {
    assertEquals("unknown", Format.skew(null));
    assertEquals("0 ms", Format.skew(0L));
    assertEquals("−40 ms", Format.skew(-40L));
    assertEquals("+2.350 s", Format.skew(2350L));
    assertEquals("+5 min", Format.skew(300_000L));
    assertEquals("−3 h 5 min", Format.skew(-(3 * 3_600_000L + 5 * 60_000L)));
    assertEquals("−365 d 0 h", Format.skew(-365 * 86_400_000L));
  }

  @Test
  void serverTimesAreShownLocallyAndGarbageAsIs() {
    assertEquals("2026-11-30 05:57:29", Format.dateTime("2026-11-30T05:57:29Z", ZoneOffset.UTC));
    assertEquals(
        "2026-11-30 06:57:29", Format.dateTime("2026-11-30T05:57:29Z", ZoneOffset.ofHours(1)));
    assertEquals("—", Format.dateTime(null, ZoneOffset.UTC));
    assertEquals("yesterday", Format.dateTime("yesterday", ZoneOffset.UTC));
  }

  @Test
  void coloursAreSixHexDigits() {
    assertEquals("#FFFFFF", Format.colour(0xFFFFFF));
    assertEquals("#000000", Format.colour(0));
    assertThrows(IllegalArgumentException.class, () -> Format.colour(0x1000000));
    assertThrows(IllegalArgumentException.class, () -> Format.colour(-1));
  }
}
