package dev.danmakuledger.protocol.clock;

import java.time.Clock;
import java.util.Objects;

/**
 * A hybrid logical clock (Kulkarni et al. 2014, Figure 5): timestamps close to the wall clock that
 * never go backwards, even when the wall clock does, and that order causally related events across
 * devices via {@link #update(Hlc)}. When the logical counter of one millisecond is exhausted the
 * clock moves its physical part one millisecond ahead instead of wrapping. Thread-safe.
 */
public final class HybridLogicalClock {
  private final Clock clock;
  private long physical;
  private int logical;

  /** Creates a clock that reads wall time from {@code clock}. */
  public HybridLogicalClock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Returns a timestamp for a local or send event, greater than every one returned before. */
  public synchronized Hlc now() {
    long wall = wallMillis();
    if (wall > physical) {
      physical = wall;
      logical = 0;
    } else {
      tick(logical + 1);
    }
    return new Hlc(physical, logical);
  }

  /**
   * Returns a timestamp for receiving an event stamped {@code remote}, greater than {@code remote}
   * and than every timestamp returned before.
   */
  public synchronized Hlc update(Hlc remote) {
    Objects.requireNonNull(remote, "remote");
    long wall = wallMillis();
    long max = Math.max(Math.max(physical, remote.physicalMillis()), wall);
    if (max == physical && max == remote.physicalMillis()) {
      tick(Math.max(logical, remote.logical()) + 1);
    } else if (max == physical) {
      tick(logical + 1);
    } else if (max == remote.physicalMillis()) {
      physical = max;
      tick(remote.logical() + 1);
    } else {
      physical = max;
      logical = 0;
    }
    return new Hlc(physical, logical);
  }

  private void tick(int next) {
    if (next <= Hlc.MAX_LOGICAL) {
      logical = next;
      return;
    }
    if (physical >= Hlc.MAX_PHYSICAL) {
      throw new IllegalStateException(
          "hlc: got physical "
              + physical
              + " with an exhausted counter, want < "
              + Hlc.MAX_PHYSICAL);
    }
    physical++;
    logical = 0;
  }

  private long wallMillis() {
    long wall = clock.millis();
    if (wall < 0 || wall > Hlc.MAX_PHYSICAL) {
      throw new IllegalStateException(
          "hlc wall clock: got " + wall + " ms, want 0.." + Hlc.MAX_PHYSICAL);
    }
    return wall;
  }
}
