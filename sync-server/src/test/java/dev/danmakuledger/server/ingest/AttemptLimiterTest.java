package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

final class AttemptLimiterTest {
  private Instant now = Instant.parse("2026-12-01T00:00:00Z");
  private final Clock clock =
      new Clock() {
        @Override
        public Instant instant() {
          return now;
        }

        @Override
        public java.time.ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }
      };

  @Test
  void countsUpToTheLimitPerKeyPerWindow() {
    AttemptLimiter l = new AttemptLimiter(2, Duration.ofMinutes(5), clock);
    assertTrue(l.tryAcquire("a"));
    assertFalse(l.isExhausted("a"));
    assertTrue(l.tryAcquire("a"));
    assertTrue(l.isExhausted("a"));
    assertFalse(l.tryAcquire("a"));
    assertTrue(l.tryAcquire("b"), "keys are independent");
    now = now.plusSeconds(60);
    assertEquals(240, l.retryAfterSeconds("a"));
    now = now.plusSeconds(240);
    assertFalse(l.isExhausted("a"));
    assertTrue(l.tryAcquire("a"), "a new window");
    assertEquals(300, l.retryAfterSeconds("a"));
    assertEquals(1, l.retryAfterSeconds("never-seen"));
  }

  @Test
  void expiredWindowsArePrunedOnceTheMapIsFull() {
    AttemptLimiter l = new AttemptLimiter(1, Duration.ofMinutes(5), clock);
    for (int i = 0; i < AttemptLimiter.PRUNE_AT; i++) {
      l.tryAcquire("k" + i);
    }
    assertEquals(AttemptLimiter.PRUNE_AT, l.size());
    now = now.plus(Duration.ofMinutes(1));
    l.tryAcquire("live");
    assertEquals(AttemptLimiter.PRUNE_AT + 1, l.size(), "nothing expired yet");
    now = now.plus(Duration.ofMinutes(4));
    l.tryAcquire("fresh");
    assertEquals(2, l.size(), "the expired windows are gone, the live one stays");
    assertTrue(l.isExhausted("live"));
    assertTrue(l.tryAcquire("k1"), "a pruned key starts a new window");
  }

  @Test
  void refusesLimitsThatCannotHold() {
    assertThrows(
        IllegalArgumentException.class, () -> new AttemptLimiter(0, Duration.ofMinutes(1), clock));
    assertThrows(IllegalArgumentException.class, () -> new AttemptLimiter(1, Duration.ZERO, clock));
  }
}
