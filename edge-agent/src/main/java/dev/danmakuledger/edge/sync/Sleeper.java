package dev.danmakuledger.edge.sync;

import java.time.Duration;

/** Waits between retries; tests pass one that records the delays instead of sleeping. */
@FunctionalInterface
public interface Sleeper {
  void sleep(Duration delay) throws InterruptedException;

  /** Sleeps on the calling thread. */
  static Sleeper real() {
    return delay -> Thread.sleep(delay.toMillis());
  }
}
