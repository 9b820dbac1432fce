package dev.danmakuledger.protocol.clock;

/**
 * A hybrid logical clock timestamp (Kulkarni et al., "Logical Physical Clocks", OPODIS 2014): the
 * largest physical time seen, in milliseconds since the Unix epoch, and a logical counter that
 * orders events within that millisecond. Packs into one long, {@code physicalMillis << 16 |
 * logical}, whose signed order is the timestamp order.
 *
 * @param physicalMillis 0..2^47-1 (the top bit of the 48-bit field stays zero so packed values are
 *     non-negative)
 * @param logical 0..65535
 */
public record Hlc(long physicalMillis, int logical) implements Comparable<Hlc> {
  /** Largest physical part, 2^47 - 1 milliseconds (year 6429). */
  public static final long MAX_PHYSICAL = (1L << 47) - 1;

  /** Largest logical counter. */
  public static final int MAX_LOGICAL = 0xFFFF;

  /** Validates the ranges. */
  public Hlc {
    if (physicalMillis < 0 || physicalMillis > MAX_PHYSICAL) {
      throw new IllegalArgumentException(
          "hlc physicalMillis: got " + physicalMillis + ", want 0.." + MAX_PHYSICAL);
    }
    if (logical < 0 || logical > MAX_LOGICAL) {
      throw new IllegalArgumentException(
          "hlc logical: got " + logical + ", want 0.." + MAX_LOGICAL);
    }
  }

  /** Returns {@code physicalMillis << 16 | logical}. */
  public long pack() {
    return physicalMillis << 16 | logical;
  }

  /**
   * Inverse of {@link #pack()}.
   *
   * @throws IllegalArgumentException if {@code packed} is negative
   */
  public static Hlc unpack(long packed) {
    if (packed < 0) {
      throw new IllegalArgumentException("packed hlc: got " + packed + ", want >= 0");
    }
    return new Hlc(packed >>> 16, (int) (packed & MAX_LOGICAL));
  }

  @Override
  public int compareTo(Hlc other) {
    return Long.compare(pack(), other.pack());
  }
}
