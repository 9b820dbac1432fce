package dev.danmakuledger.server;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system clock moved forward by hand: time keeps running (message ids need it to), and a test
 * can jump ahead without sleeping.
 */
final class OffsetClock extends Clock {
  private volatile long offsetMillis;

  /** Moves the clock {@code d} forward. */
  void advance(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("d: got " + d + ", want >= 0");
    }
    offsetMillis += d.toMillis();
  }

  @Override
  public long millis() {
    return System.currentTimeMillis() + offsetMillis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("fixed to UTC");
  }
}
