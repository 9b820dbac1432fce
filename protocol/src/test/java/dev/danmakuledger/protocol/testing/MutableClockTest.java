package dev.danmakuledger.protocol.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class MutableClockTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");

  @Test
  void aStoppedClockMovesOnlyWhenMoved() {
    MutableClock c = new MutableClock(T0);
    assertEquals(T0, c.instant());
    assertEquals(T0.toEpochMilli(), c.millis());
    c.advance(Duration.ofSeconds(90));
    assertEquals(T0.plusSeconds(90), c.instant());
    c.set(T0.minusSeconds(5));
    assertEquals(T0.minusSeconds(5), c.instant());
  }

  @Test
  void aRunningClockFollowsTheSystemClockPlusWhatItWasMoved() {
    MutableClock c = MutableClock.running();
    long before = System.currentTimeMillis();
    c.advance(Duration.ofHours(1));
    long read = c.millis();
    long after = System.currentTimeMillis();
    assertTrue(read >= before + 3_600_000 && read <= after + 3_600_000, read + " not in range");
    assertThrows(IllegalStateException.class, () -> c.set(T0));
  }

  @Test
  void aNegativeAdvanceStepsItBackAndItStaysInUtc() {
    MutableClock c = new MutableClock(T0);
    c.advance(Duration.ofMillis(-1));
    assertEquals(T0.toEpochMilli() - 1, c.millis());
    assertEquals(ZoneOffset.UTC, c.getZone());
    assertSame(c, c.withZone(ZoneId.of("UTC")));
    assertThrows(UnsupportedOperationException.class, () -> c.withZone(ZoneId.of("Asia/Tokyo")));
  }
}
