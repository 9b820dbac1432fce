package dev.danmakuledger.edge.sync;

import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with full jitter (the AWS Architecture Blog's "Exponential Backoff And
 * Jitter"): before retry {@code n} (1-based) wait a uniformly random time in {@code [0, min(cap,
 * base * 2^(n-1)))}, but never less than the server's {@code Retry-After}. Full jitter spreads the
 * retries of many devices that lost the server at the same moment.
 */
public final class Backoff {
  private final Duration base;
  private final Duration cap;
  private final DoubleSupplier random;

  /**
   * @param random uniform values in {@code [0, 1)}
   * @throws IllegalArgumentException if {@code base} is not positive or {@code cap < base}
   */
  public Backoff(Duration base, Duration cap, DoubleSupplier random) {
    if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
      throw new IllegalArgumentException(
          "backoff: got base " + base + ", cap " + cap + ", want 0 < base <= cap");
    }
    this.base = base;
    this.cap = cap;
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * The wait before retry {@code retry}.
   *
   * @param retry 1 for the first retry
   * @param retryAfter the server's {@code Retry-After}, or null
   */
  public Duration delay(int retry, Duration retryAfter) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry: got " + retry + ", want >= 1");
    }
    long ceiling = cap.toMillis();
    int shift = Math.min(retry - 1, 30);
    long exp = base.toMillis() << shift;
    if (exp > 0 && exp < ceiling) {
      ceiling = exp;
    }
    double r = random.getAsDouble();
    if (r < 0 || r >= 1) {
      throw new IllegalStateException("random: got " + r + ", want [0, 1)");
    }
    Duration jittered = Duration.ofMillis((long) (r * ceiling));
    if (retryAfter != null && retryAfter.compareTo(jittered) > 0) {
      return retryAfter;
    }
    return jittered;
  }
}
