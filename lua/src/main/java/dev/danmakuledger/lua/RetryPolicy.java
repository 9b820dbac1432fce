package dev.danmakuledger.lua;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Bounded retries with exponential backoff and full jitter (AWS Architecture Blog, "Exponential
 * Backoff And Jitter"): before retry {@code r} (1-based) the runner waits a uniformly random
 * duration in {@code [0, min(maxDelay, baseDelay * 2^(r-1)))}. It stops after {@code maxAttempts}
 * attempts, or when the next wait would end more than {@code maxElapsed} after the first attempt
 * began on the clock, whichever comes first. Which failures are retried is documented in
 * docs/lua-scripts.md; every script is safe to re-run.
 *
 * <p>Immutable; the {@code with*} methods return modified copies. Clock, pause and randomness are
 * injectable so tests check the schedule without waiting.
 */
public final class RetryPolicy {
  private final int maxAttempts;
  private final Duration baseDelay;
  private final Duration maxDelay;
  private final Duration maxElapsed;
  private final Clock clock;
  private final RetryPause pause;
  private final DoubleSupplier random;

  private RetryPolicy(
      int maxAttempts,
      Duration baseDelay,
      Duration maxDelay,
      Duration maxElapsed,
      Clock clock,
      RetryPause pause,
      DoubleSupplier random) {
    if (maxAttempts < 1 || maxAttempts > 100) {
      throw new IllegalArgumentException("maxAttempts: got " + maxAttempts + ", want 1..100");
    }
    requirePositive("baseDelay", baseDelay);
    requirePositive("maxDelay", maxDelay);
    requirePositive("maxElapsed", maxElapsed);
    if (maxDelay.compareTo(baseDelay) < 0) {
      throw new IllegalArgumentException(
          "maxDelay: got " + maxDelay + ", want >= baseDelay " + baseDelay);
    }
    this.maxAttempts = maxAttempts;
    this.baseDelay = baseDelay;
    this.maxDelay = maxDelay;
    this.maxElapsed = maxElapsed;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.pause = Objects.requireNonNull(pause, "pause");
    this.random = Objects.requireNonNull(random, "random");
  }

  private static void requirePositive(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + ": got " + d + ", want > 0");
    }
  }

  /**
   * At most {@code maxAttempts} attempts (1..100) with full-jitter backoff from {@code baseDelay}
   * doubling up to {@code maxDelay}; no overall time limit beyond a day; system clock and sleep.
   */
  public static RetryPolicy exponential(int maxAttempts, Duration baseDelay, Duration maxDelay) {
    return new RetryPolicy(
        maxAttempts,
        baseDelay,
        maxDelay,
        Duration.ofDays(1),
        Clock.systemUTC(),
        RetryPause.SYSTEM,
        () -> ThreadLocalRandom.current().nextDouble());
  }

  /** 5 attempts, 50 ms base, 2 s cap, 10 s overall: rides out a failover or a script restart. */
  public static RetryPolicy defaults() {
    return exponential(5, Duration.ofMillis(50), Duration.ofSeconds(2))
        .withMaxElapsed(Duration.ofSeconds(10));
  }

  /** A single attempt, no retries (NOSCRIPT is still answered by sending the script once). */
  public static RetryPolicy none() {
    return exponential(1, Duration.ofMillis(1), Duration.ofMillis(1));
  }

  /** A copy that stops retrying once {@code maxElapsed} (> 0) has passed since the first try. */
  public RetryPolicy withMaxElapsed(Duration maxElapsed) {
    return new RetryPolicy(maxAttempts, baseDelay, maxDelay, maxElapsed, clock, pause, random);
  }

  /** A copy that measures elapsed time on {@code clock}. */
  public RetryPolicy withClock(Clock clock) {
    return new RetryPolicy(maxAttempts, baseDelay, maxDelay, maxElapsed, clock, pause, random);
  }

  /** A copy that waits with {@code pause}. */
  public RetryPolicy withPause(RetryPause pause) {
    return new RetryPolicy(maxAttempts, baseDelay, maxDelay, maxElapsed, clock, pause, random);
  }

  /** A copy that draws jitter from {@code random}, which must return values in [0, 1). */
  public RetryPolicy withRandom(DoubleSupplier random) {
    return new RetryPolicy(maxAttempts, baseDelay, maxDelay, maxElapsed, clock, pause, random);
  }

  /** The attempt bound, including the first attempt. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * The wait before retry {@code retry} (1-based: 1 is the wait after the first failed attempt).
   *
   * @throws IllegalArgumentException if {@code retry < 1}
   */
  public Duration delayBefore(int retry) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry: got " + retry + ", want >= 1");
    }
    double r = random.getAsDouble();
    if (!(r >= 0.0 && r < 1.0)) {
      throw new IllegalStateException("random: got " + r + ", want [0, 1)");
    }
    long capNanos = maxDelay.toNanos();
    long ceiling = baseDelay.toNanos();
    for (int i = 1; i < retry && ceiling < capNanos; i++) {
      ceiling = Math.min(capNanos, ceiling * 2);
    }
    return Duration.ofNanos((long) (r * Math.min(ceiling, capNanos)));
  }

  Instant now() {
    return clock.instant();
  }

  /** True if waiting {@code delay} more still ends within {@code maxElapsed} of {@code start}. */
  boolean withinBudget(Instant start, Duration delay) {
    return Duration.between(start, clock.instant()).plus(delay).compareTo(maxElapsed) < 0;
  }

  RetryPause pause() {
    return pause;
  }

  @Override
  public String toString() {
    return "RetryPolicy[maxAttempts="
        + maxAttempts
        + ", baseDelay="
        + baseDelay
        + ", maxDelay="
        + maxDelay
        + ", maxElapsed="
        + maxElapsed
        + "]";
  }
}
