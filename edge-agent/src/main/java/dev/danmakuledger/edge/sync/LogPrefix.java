package dev.danmakuledger.edge.sync;

import dev.danmakuledger.merkle.compact.CompactRange;
import java.util.List;

/**
 * The first {@link #size()} records of the device log as their compact range (RFC 9162 §2.1;
 * docs/architecture.md §3): the root the server must hold at that size, and the base on which the
 * next batch's checkpoint is computed. Immutable: the range is copied in and out.
 */
record LogPrefix(CompactRange range) {
  /** The empty log. */
  static final LogPrefix EMPTY = new LogPrefix(CompactRange.empty());

  LogPrefix {
    if (range.begin() != 0) {
      throw new IllegalArgumentException(
          "log prefix: got a range from " + range.begin() + ", want one from 0");
    }
    range = range.copy();
  }

  /** A copy of the compact range of {@code [0, size())}. */
  @Override
  public CompactRange range() {
    return range.copy();
  }

  long size() {
    return range.end();
  }

  byte[] root() {
    return range.root();
  }

  /** This prefix with {@code leafHashes} appended, in order. */
  LogPrefix append(List<byte[]> leafHashes) {
    CompactRange next = range.copy();
    for (byte[] h : leafHashes) {
      next.append(h);
    }
    return new LogPrefix(next);
  }
}
