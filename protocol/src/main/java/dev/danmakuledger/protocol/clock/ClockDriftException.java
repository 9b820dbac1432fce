package dev.danmakuledger.protocol.clock;

/**
 * A remote timestamp further ahead of the local wall clock than the clock's bound ε (Kulkarni et
 * al. 2014, §3: HLC assumes clocks synchronised within ε). Accepting it would drag every later
 * local timestamp into the future, so {@link HybridLogicalClock#update(Hlc)} refuses it and leaves
 * the clock unchanged.
 */
public final class ClockDriftException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final long aheadMillis;
  private final long maxMillis;

  ClockDriftException(long aheadMillis, long maxMillis) {
    super(
        "remote hlc: got "
            + aheadMillis
            + " ms ahead of the wall clock, want at most "
            + maxMillis
            + " ms");
    this.aheadMillis = aheadMillis;
    this.maxMillis = maxMillis;
  }

  /** Returns how far the remote physical time was ahead of the local wall clock. */
  public long aheadMillis() {
    return aheadMillis;
  }

  /** Returns the bound that was exceeded. */
  public long maxMillis() {
    return maxMillis;
  }
}
