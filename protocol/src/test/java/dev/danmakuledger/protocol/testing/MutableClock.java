package dev.danmakuledger.protocol.testing;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves by hand, forwards or backwards. */
public final class MutableClock extends Clock {
  private volatile long millis;

  public MutableClock(long millis) {
    this.millis = millis;
  }

  public void set(long millis) {
    this.millis = millis;
  }

  public void advance(long deltaMillis) {
    this.millis += deltaMillis;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
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
