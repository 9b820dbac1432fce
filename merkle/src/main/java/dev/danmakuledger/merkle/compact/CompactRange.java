package dev.danmakuledger.merkle.compact;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.hash.Rfc6962;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A compact Merkle range: the hashes of the minimal set of perfect subtrees that exactly cover the
 * leaves {@code [begin, end)}, ordered left to right. This is the "compact range" of
 * transparency-dev/merkle and the incremental tree of RFC 9162 §2.1.1: it needs O(log n) hashes,
 * appends a leaf in amortised O(1) hashing, merges with an adjacent range, and for {@code begin ==
 * 0} yields the tree root in O(log n).
 *
 * <p>Mutable and not thread-safe.
 */
public final class CompactRange {
  private static final byte FORMAT_VERSION = 1;
  private static final int HEADER_SIZE = 1 + 8 + 8;

  private long begin;
  private long end;
  private final ArrayList<byte[]> hashes;

  private CompactRange(long begin, long end, ArrayList<byte[]> hashes) {
    this.begin = begin;
    this.end = end;
    this.hashes = hashes;
  }

  /** Returns an empty range at {@code begin = end = 0}. */
  public static CompactRange empty() {
    return new CompactRange(0, 0, new ArrayList<>());
  }

  /**
   * Returns the range {@code [begin, end)} made of the given perfect-subtree hashes, left to right.
   *
   * @throws IllegalArgumentException if {@code 0 <= begin <= end} does not hold, if the number of
   *     hashes differs from the number of perfect subtrees covering the range, or if a hash is not
   *     {@link Rfc6962#HASH_SIZE} bytes
   */
  public static CompactRange of(long begin, long end, List<byte[]> hashes) {
    checkBounds(begin, end);
    int want = size(begin, end);
    if (hashes.size() != want) {
      throw new IllegalArgumentException(
          "hashes for [" + begin + ", " + end + "): got " + hashes.size() + ", want " + want);
    }
    ArrayList<byte[]> copy = new ArrayList<>(want);
    for (int i = 0; i < hashes.size(); i++) {
      byte[] h = hashes.get(i);
      Rfc6962.checkHash("hashes[" + i + "]", h);
      copy.add(h.clone());
    }
    return new CompactRange(begin, end, copy);
  }

  /** Returns the first leaf index of the range. */
  public long begin() {
    return begin;
  }

  /** Returns the leaf index just past the range. */
  public long end() {
    return end;
  }

  /** Returns a copy of the perfect-subtree hashes, left to right. */
  public List<byte[]> hashes() {
    List<byte[]> out = new ArrayList<>(hashes.size());
    for (byte[] h : hashes) {
      out.add(h.clone());
    }
    return out;
  }

  /** Returns an independent copy of this range. */
  public CompactRange copy() {
    return new CompactRange(begin, end, new ArrayList<>(hashes));
  }

  /**
   * Appends one leaf hash to the end of the range.
   *
   * @throws IllegalArgumentException if {@code leafHash} is not {@link Rfc6962#HASH_SIZE} bytes
   * @throws IllegalStateException if the range already ends at {@link Long#MAX_VALUE}
   */
  public void append(byte[] leafHash) {
    append(leafHash, null);
  }

  /**
   * Appends one leaf hash and reports the leaf and every perfect-subtree node it completes to
   * {@code visitor} (may be null), lowest level first.
   *
   * @throws IllegalArgumentException if {@code leafHash} is not {@link Rfc6962#HASH_SIZE} bytes
   * @throws IllegalStateException if the range already ends at {@link Long#MAX_VALUE}
   */
  public void append(byte[] leafHash, NodeVisitor visitor) {
    Rfc6962.checkHash("leafHash", leafHash);
    if (end == Long.MAX_VALUE) {
      throw new IllegalStateException("range end: got " + end + ", want < " + Long.MAX_VALUE);
    }
    byte[] seed = leafHash.clone();
    if (visitor != null) {
      visitor.visit(new NodeId(0, end), seed);
    }
    merge(end + 1, seed, List.of(), visitor);
  }

  /**
   * Appends the adjacent range {@code other} (which must begin where this range ends), reporting
   * each perfect-subtree node completed by the merge to {@code visitor} (may be null). {@code
   * other} is not modified.
   *
   * @throws IllegalArgumentException if {@code other.begin() != end()}
   */
  public void appendRange(CompactRange other, NodeVisitor visitor) {
    if (other.begin != end) {
      throw new IllegalArgumentException(
          "other.begin: got " + other.begin + ", want " + end + " (ranges must be adjacent)");
    }
    if (other.hashes.isEmpty()) {
      return;
    }
    merge(other.end, other.hashes.get(0), other.hashes.subList(1, other.hashes.size()), visitor);
  }

  /**
   * Returns the Merkle tree hash (RFC 9162 §2.1.1) of the leaves {@code [0, end)}; for an empty
   * range this is {@link Rfc6962#emptyRoot()}.
   *
   * @throws IllegalStateException if {@code begin != 0}
   */
  public byte[] root() {
    if (begin != 0) {
      throw new IllegalStateException("begin: got " + begin + ", want 0 to compute a root");
    }
    if (hashes.isEmpty()) {
      return Rfc6962.emptyRoot();
    }
    byte[] hash = hashes.get(hashes.size() - 1);
    for (int i = hashes.size() - 2; i >= 0; i--) {
      hash = Rfc6962.nodeHash(hashes.get(i), hash);
    }
    return hash.clone();
  }

  /**
   * Serialises the range: version byte 1, {@code begin} and {@code end} as big-endian longs, then
   * the hashes. Restore with {@link #fromBytes(byte[])}.
   */
  public byte[] toBytes() {
    ByteBuffer buf = ByteBuffer.allocate(HEADER_SIZE + hashes.size() * Rfc6962.HASH_SIZE);
    buf.put(FORMAT_VERSION).putLong(begin).putLong(end);
    for (byte[] h : hashes) {
      buf.put(h);
    }
    return buf.array();
  }

  /**
   * Restores a range saved by {@link #toBytes()}.
   *
   * @throws IllegalArgumentException if the version is unknown, the bounds are invalid or the
   *     length does not match the number of hashes the bounds require
   */
  public static CompactRange fromBytes(byte[] bytes) {
    if (bytes.length < HEADER_SIZE) {
      throw new IllegalArgumentException(
          "compact range bytes: got " + bytes.length + ", want >= " + HEADER_SIZE);
    }
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    byte version = buf.get();
    if (version != FORMAT_VERSION) {
      throw new IllegalArgumentException(
          "compact range version: got " + version + ", want " + FORMAT_VERSION);
    }
    long begin = buf.getLong();
    long end = buf.getLong();
    checkBounds(begin, end);
    long want = HEADER_SIZE + (long) size(begin, end) * Rfc6962.HASH_SIZE;
    if (bytes.length != want) {
      throw new IllegalArgumentException(
          "compact range bytes for ["
              + begin
              + ", "
              + end
              + "): got "
              + bytes.length
              + ", want "
              + want);
    }
    ArrayList<byte[]> hashes = new ArrayList<>();
    while (buf.hasRemaining()) {
      byte[] h = new byte[Rfc6962.HASH_SIZE];
      buf.get(h);
      hashes.add(h);
    }
    return new CompactRange(begin, end, hashes);
  }

  /** Returns the number of perfect subtrees in the compact range {@code [begin, end)}. */
  static int size(long begin, long end) {
    long[] lr = decompose(begin, end);
    return Long.bitCount(lr[0]) + Long.bitCount(lr[1]);
  }

  /**
   * Splits {@code [begin, end)} into a left part (bit i set: a level-i subtree rising from begin)
   * and a right part (bit i set: a level-i subtree descending to end).
   */
  static long[] decompose(long begin, long end) {
    if (begin == 0) {
      return new long[] {0, end};
    }
    long xbegin = begin - 1;
    int d = bitLength(xbegin ^ end) - 1;
    long mask = (1L << d) - 1;
    return new long[] {~xbegin & mask, end & mask};
  }

  /**
   * Appends the perfect-subtree nodes covering {@code [begin, end)} to {@code out}, left to right.
   */
  public static void rangeNodes(long begin, long end, List<NodeId> out) {
    checkBounds(begin, end);
    long[] lr = decompose(begin, end);
    long left = lr[0];
    long right = lr[1];
    long pos = begin;
    while (left != 0) {
      int level = Long.numberOfTrailingZeros(left);
      out.add(new NodeId(level, pos >>> level));
      pos += 1L << level;
      left &= left - 1;
    }
    while (right != 0) {
      int level = bitLength(right) - 1;
      out.add(new NodeId(level, pos >>> level));
      pos += 1L << level;
      right ^= 1L << level;
    }
  }

  private void merge(long newEnd, byte[] seed, List<byte[]> rightHashes, NodeVisitor visitor) {
    int low = Long.numberOfTrailingZeros(end);
    int high = 64;
    if (begin != 0) {
      high = bitLength(end ^ (begin - 1));
    }
    high = Math.min(high, bitLength((end - 1) ^ newEnd));
    high -= 1;
    if (high < low) {
      high = low;
    }
    long index = low >= 64 ? 0 : end >>> low;
    int idx1 = hashes.size();
    int idx2 = 0;
    byte[] hash = seed;
    for (int h = low; h < high; h++) {
      if ((index & 1) == 0) {
        hash = Rfc6962.nodeHash(hash, rightHashes.get(idx2++));
      } else {
        hash = Rfc6962.nodeHash(hashes.get(--idx1), hash);
      }
      index >>>= 1;
      if (visitor != null) {
        visitor.visit(new NodeId(h + 1, index), hash);
      }
    }
    hashes.subList(idx1, hashes.size()).clear();
    hashes.add(hash);
    hashes.addAll(rightHashes.subList(idx2, rightHashes.size()));
    end = newEnd;
  }

  private static void checkBounds(long begin, long end) {
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException(
          "range: got [" + begin + ", " + end + "), want 0 <= begin <= end");
    }
  }

  private static int bitLength(long x) {
    return 64 - Long.numberOfLeadingZeros(x);
  }
}
