package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** Full-jitter backoff: bounds, growth, cap and Retry-After. */
class BackoffTest {
  static final Duration BASE = Duration.ofMillis(100);
  static final Duration CAP = Duration.ofSeconds(10);

  @Test
  void ceilingDoublesPerRetryUpToTheCap() {
    Backoff almostOne = new Backoff(BASE, CAP, () -> 0.999_999);
    assertEquals(99, almostOne.delay(1, null).toMillis());
    assertEquals(199, almostOne.delay(2, null).toMillis());
    assertEquals(399, almostOne.delay(3, null).toMillis());
    assertEquals(9_999, almostOne.delay(8, null).toMillis());
    assertEquals(9_999, almostOne.delay(1_000, null).toMillis());
  }

  @Test
  void zeroRandomWaitsNothingUnlessTheServerSaysSo() {
    Backoff zero = new Backoff(BASE, CAP, () -> 0.0);
    assertEquals(Duration.ZERO, zero.delay(5, null));
    assertEquals(Duration.ofSeconds(30), zero.delay(5, Duration.ofSeconds(30)));
  }

  @Test
  void retryAfterShorterThanTheJitterDoesNotShortenIt() {
    Backoff half = new Backoff(BASE, CAP, () -> 0.5);
    assertEquals(Duration.ofMillis(400), half.delay(4, Duration.ofMillis(10)));
  }

  @Test
  void badArgumentsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, CAP, () -> 0));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(CAP, BASE, () -> 0));
    Backoff b = new Backoff(BASE, CAP, () -> 0);
    assertThrows(IllegalArgumentException.class, () -> b.delay(0, null));
    Backoff broken = new Backoff(BASE, CAP, () -> 1.0);
    assertThrows(IllegalStateException.class, () -> broken.delay(1, null));
  }

  @Property(seed = "20261130")
  void delayIsWithinZeroAndTheCeiling(
      @ForAll @IntRange(min = 1, max = 200) int retry,
      @ForAll @DoubleRange(min = 0, max = 1, maxIncluded = false) double r) {
    Duration d = new Backoff(BASE, CAP, () -> r).delay(retry, null);
    long ceiling = Math.min(CAP.toMillis(), BASE.toMillis() << Math.min(retry - 1, 30));
    assertTrue(!d.isNegative() && d.toMillis() < Math.max(1, ceiling), d + " for retry " + retry);
  }
}
