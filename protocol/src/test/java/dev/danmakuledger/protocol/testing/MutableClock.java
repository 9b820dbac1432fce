package dev.danmakuledger.protocol.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A UTC clock a test moves by hand instead of sleeping. {@link #MutableClock(Instant)} stands still
 * between moves; {@link #running()} follows the system clock (for code that needs time to pass,
 * such as message ids) and jumps ahead when moved.
 */
public final class MutableClock extends Clock {
  private final boolean running;

  /** The instant in millis when stopped; the offset from the system clock when running. */
  private final AtomicLong millis;

  /** A clock standing at {@code start} until it is moved. */
  public MutableClock(Instant start) {
    this(false, start.toEpochMilli());
  }

  private MutableClock(boolean running, long millis) {
    this.running = running;
    this.millis = new AtomicLong(millis);
  }

  /** The system clock, which {@link #advance} moves by what it is given. */
  public static MutableClock running() {
    return new MutableClock(true, 0);
  }

  /** Moves the clock by {@code d}: forward, or back when {@code d} is negative (a clock step). */
  public void advance(Duration d) {
    millis.addAndGet(d.toMillis());
  }

  /** Sets a stopped clock to {@code t}, forwards or backwards. */
  public void set(Instant t) {
    if (running) {
      throw new IllegalStateException("set: got a running clock, want a stopped one");
    }
    millis.set(t.toEpochMilli());
  }

  @Override
  public long millis() {
    return running ? System.currentTimeMillis() + millis.get() : millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /** The same clock for UTC; other zones are refused, the clock is fixed to UTC. */
  @Override
  public Clock withZone(ZoneId zone) {
    if (!ZoneOffset.UTC.equals(zone.normalized())) {
      throw new UnsupportedOperationException("withZone: got " + zone + ", want UTC");
    }
    return this;
  }
}
