package dev.danmakuledger.server.ingest;

import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A fixed-window counter per key (device id, client address) in this server's memory: at most
 * {@code max} events per key per window. Used to bound what unauthenticated clients can make the
 * server store; each instance limits on its own, which is enough to keep one flood from filling the
 * database. Memory is bounded by pruning expired windows once the map holds {@link #PRUNE_AT} keys.
 */
final class AttemptLimiter {
  static final int PRUNE_AT = 100_000;

  private final int max;
  private final long windowMillis;
  private final Clock clock;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();
  private volatile long nextPruneAt;

  AttemptLimiter(int max, Duration window, Clock clock) {
    if (max < 1) {
      throw new IllegalArgumentException("max: got " + max + ", want >= 1");
    }
    if (window.toMillis() < 1) {
      throw new IllegalArgumentException("window: got " + window + ", want > 0");
    }
    this.max = max;
    this.windowMillis = window.toMillis();
    this.clock = clock;
  }

  private static final class Window {
    final long start;
    int count;

    Window(long start) {
      this.start = start;
    }
  }

  /** Counts one event for {@code key}; false (not counted) when its window is full. */
  boolean tryAcquire(String key) {
    long now = clock.millis();
    prune(now);
    boolean[] ok = {false};
    windows.compute(
        key,
        (k, w) -> {
          Window cur = w == null || now >= w.start + windowMillis ? new Window(now) : w;
          if (cur.count < max) {
            cur.count++;
            ok[0] = true;
          }
          return cur;
        });
    return ok[0];
  }

  /** True when {@code key}'s window is full now. */
  boolean isExhausted(String key) {
    Window w = windows.get(key);
    long now = clock.millis();
    return w != null && now < w.start + windowMillis && w.count >= max;
  }

  /** Whole seconds until {@code key}'s window ends (at least 1). */
  long retryAfterSeconds(String key) {
    Window w = windows.get(key);
    long left = w == null ? 0 : w.start + windowMillis - clock.millis();
    return Math.max(1, (left + 999) / 1000);
  }

  /** Number of keys held. */
  int size() {
    return windows.size();
  }

  private void prune(long now) {
    if (windows.size() < PRUNE_AT || now < nextPruneAt) {
      return;
    }
    nextPruneAt = now + 1000;
    for (Iterator<Window> it = windows.values().iterator(); it.hasNext(); ) {
      if (now >= it.next().start + windowMillis) {
        it.remove();
      }
    }
  }
}
