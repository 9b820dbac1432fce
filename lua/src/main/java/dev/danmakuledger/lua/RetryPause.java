package dev.danmakuledger.lua;

import java.time.Duration;

/** Waits between retry attempts; tests pass one that records the delays instead of sleeping. */
@FunctionalInterface
public interface RetryPause {
  /** The real thing: {@link Thread#sleep(long)}. */
  RetryPause SYSTEM = d -> Thread.sleep(d.toMillis());

  /** Blocks for {@code duration}. */
  void sleep(Duration duration) throws InterruptedException;
}
