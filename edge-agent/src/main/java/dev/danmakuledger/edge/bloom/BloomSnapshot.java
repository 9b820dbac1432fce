package dev.danmakuledger.edge.bloom;

/**
 * A persisted copy of a {@link RotatingBloom}. {@code coveredSize} is the device-log size whose
 * keys it holds: on restart the keys of records {@code [coveredSize, size)} are added again. {@code
 * previousBits} is null before the first rotation.
 */
public record BloomSnapshot(
    long expectedItems,
    double falsePositiveRate,
    long coveredSize,
    long currentStartedAt,
    long rotations,
    long currentItems,
    byte[] currentBits,
    long previousItems,
    byte[] previousBits) {
  public BloomSnapshot {
    if (coveredSize < 0) {
      throw new IllegalArgumentException("covered size: got " + coveredSize + ", want >= 0");
    }
    if (currentBits == null) {
      throw new IllegalArgumentException("current bits: got null, want the bit array");
    }
  }
}
