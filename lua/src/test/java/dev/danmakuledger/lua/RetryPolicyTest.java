package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  private static final RetryPolicy BASE =
      RetryPolicy.exponential(10, Duration.ofMillis(10), Duration.ofMillis(100));

  @Test
  void ceilingDoublesFromBaseUpToTheCap() {
    RetryPolicy nearOne = BASE.withRandom(() -> Math.nextDown(1.0));
    assertEquals(9, nearOne.delayBefore(1).toMillis());
    assertEquals(19, nearOne.delayBefore(2).toMillis());
    assertEquals(39, nearOne.delayBefore(3).toMillis());
    assertEquals(79, nearOne.delayBefore(4).toMillis());
    assertEquals(99, nearOne.delayBefore(5).toMillis());
    assertEquals(99, nearOne.delayBefore(60).toMillis(), "no overflow for large retry numbers");
  }

  @Test
  void fullJitterScalesTheCeilingByTheDraw() {
    assertEquals(Duration.ZERO, BASE.withRandom(() -> 0.0).delayBefore(3));
    assertEquals(Duration.ofMillis(20), BASE.withRandom(() -> 0.5).delayBefore(3));
  }

  @Property(seed = "20261130")
  void delayIsWithinZeroAndTheCeiling(
      @ForAll @IntRange(min = 1, max = 200) int retry,
      @ForAll @DoubleRange(min = 0.0, max = 1.0, maxIncluded = false) double draw) {
    Duration d = BASE.withRandom(() -> draw).delayBefore(retry);
    long ceilingNanos = Math.min(100_000_000L, 10_000_000L << Math.min(retry - 1, 20));
    assertTrue(!d.isNegative() && d.toNanos() < ceilingNanos, "got " + d);
  }

  @Test
  void malformedPoliciesAreRefused() {
    Duration ms = Duration.ofMillis(1);
    assertThrows(IllegalArgumentException.class, () -> RetryPolicy.exponential(0, ms, ms));
    assertThrows(IllegalArgumentException.class, () -> RetryPolicy.exponential(101, ms, ms));
    assertThrows(
        IllegalArgumentException.class, () -> RetryPolicy.exponential(3, Duration.ZERO, ms));
    assertThrows(
        IllegalArgumentException.class,
        () -> RetryPolicy.exponential(3, Duration.ofSeconds(2), Duration.ofSeconds(1)));
    assertThrows(IllegalArgumentException.class, () -> BASE.withMaxElapsed(Duration.ofSeconds(-1)));
    assertThrows(IllegalArgumentException.class, () -> BASE.delayBefore(0));
    assertThrows(IllegalStateException.class, () -> BASE.withRandom(() -> 1.0).delayBefore(1));
    assertThrows(
        IllegalStateException.class, () -> BASE.withRandom(() -> Double.NaN).delayBefore(1));
  }
}
