package dev.danmakuledger.edge.store;

/**
 * The persisted log size and compact range bytes ({@code CompactRange.toBytes}); null bytes when
 * empty.
 */
public record LogStateRow(long size, byte[] compactRange) {
  public LogStateRow {
    if (size < 0) {
      throw new IllegalArgumentException("log size: got " + size + ", want >= 0");
    }
  }
}
