package dev.danmakuledger.ui.client;

import java.time.Duration;

/**
 * Exponential reconnect delays for the live event stream: {@code initial}, doubled after each
 * failure, capped at {@code max}, and back to {@code initial} after a successful connection. Not
 * thread-safe; owned by one {@link EventStream}.
 */
public final class ReconnectDelays {
  private final Duration initial;
  private final Duration max;
  private Duration next;

  /**
   * @param initial first delay, positive
   * @param max the cap, at least {@code initial}
   */
  public ReconnectDelays(Duration initial, Duration max) {
    if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "got initial=" + initial + " max=" + max + ", want 0 < initial <= max");
    }
    this.initial = initial;
    this.max = max;
    this.next = initial;
  }

  /** Returns the delay before the next attempt and doubles the one after (up to the cap). */
  public Duration next() {
    Duration current = next;
    Duration doubled = current.multipliedBy(2);
    next = doubled.compareTo(max) > 0 ? max : doubled;
    return current;
  }

  /** Forgets past failures: the next delay is the initial one again. */
  public void reset() {
    next = initial;
  }
}
