package dev.danmakuledger.protocol.clock;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * A hybrid logical clock (Kulkarni et al. 2014, Figure 5): timestamps close to the wall clock that
 * never go backwards, even when the wall clock does, and that order causally related events across
 * devices via {@link #update(Hlc)}. When the logical counter of one millisecond is exhausted the
 * clock moves its physical part one millisecond ahead instead of wrapping. Optionally, remote
 * timestamps too far ahead of the wall clock are refused (the paper's ε bound), so one peer with a
 * broken clock cannot drag everyone's timestamps into the future. Thread-safe.
 */
public final class HybridLogicalClock {
  private final Clock clock;
  private final long maxForwardDriftMillis;
  private long physical;
  private int logical;

  /** Creates a clock that reads wall time from {@code clock} and accepts any remote timestamp. */
  public HybridLogicalClock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.maxForwardDriftMillis = Long.MAX_VALUE;
  }

  /**
   * Creates a clock that reads wall time from {@code clock} and refuses remote timestamps more than
   * {@code maxForwardDrift} ahead of it.
   *
   * @throws IllegalArgumentException if {@code maxForwardDrift} is negative
   */
  public HybridLogicalClock(Clock clock, Duration maxForwardDrift) {
    this.clock = Objects.requireNonNull(clock, "clock");
    if (maxForwardDrift.isNegative()) {
      throw new IllegalArgumentException(
          "hlc max forward drift: got " + maxForwardDrift + ", want >= 0");
    }
    this.maxForwardDriftMillis = maxForwardDrift.toMillis();
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
   *
   * @throws ClockDriftException if {@code remote} is further ahead of the wall clock than this
   *     clock's bound; the clock is then unchanged
   */
  public synchronized Hlc update(Hlc remote) {
    Objects.requireNonNull(remote, "remote");
    long wall = wallMillis();
    long ahead = remote.physicalMillis() - wall;
    if (ahead > maxForwardDriftMillis) {
      throw new ClockDriftException(ahead, maxForwardDriftMillis);
    }
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
