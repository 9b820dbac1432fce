package dev.danmakuledger.merkle.proof;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Builds inclusion (RFC 9162 §2.1.3.1) and consistency (RFC 9162 §2.1.4.1) proofs from stored
 * perfect-subtree hashes, following the node selection of transparency-dev/merkle {@code
 * proof/nodes.go}. A proof entry that covers a non-perfect ("ephemeral") subtree at the right edge
 * of the tree is composed here from the perfect subtrees under it, so a {@link HashSource} is only
 * ever asked for perfect nodes.
 */
public final class Proofs {
  private Proofs() {}

  /**
   * Returns the perfect-subtree nodes whose hashes make the inclusion proof of leaf {@code index}
   * in the tree of {@code size} leaves, in proof order; consecutive nodes that cover one ephemeral
   * entry are listed lowest first.
   *
   * @throws IllegalArgumentException unless {@code 0 <= index < size}
   */
  public static List<NodeId> inclusionNodes(long index, long size) {
    return inclusionPlan(index, size).ids;
  }

  /**
   * Returns the perfect-subtree nodes whose hashes make the consistency proof from {@code size1} to
   * {@code size2}, in proof order (empty if {@code size1} is 0 or equals {@code size2}).
   *
   * @throws IllegalArgumentException unless {@code 0 <= size1 <= size2}
   */
  public static List<NodeId> consistencyNodes(long size1, long size2) {
    return consistencyPlan(size1, size2).ids;
  }

  /**
   * Returns the inclusion proof of leaf {@code index} in the tree of {@code size} leaves.
   *
   * @throws IllegalArgumentException unless {@code 0 <= index < size}, or if {@code src} returns a
   *     hash of the wrong length
   */
  public static List<byte[]> inclusion(long index, long size, HashSource src) {
    return inclusionPlan(index, size).fetch(src);
  }

  /**
   * Returns the consistency proof between the trees of {@code size1} and {@code size2} leaves.
   *
   * @throws IllegalArgumentException unless {@code 0 <= size1 <= size2}, or if {@code src} returns
   *     a hash of the wrong length
   */
  public static List<byte[]> consistency(long size1, long size2, HashSource src) {
    return consistencyPlan(size1, size2).fetch(src);
  }

  private static Plan inclusionPlan(long index, long size) {
    if (index < 0 || index >= size) {
      throw new IllegalArgumentException(
          "index: got " + index + ", want 0 <= index < size " + size);
    }
    return plan(index, 0, size).skipFirst();
  }

  private static Plan consistencyPlan(long size1, long size2) {
    if (size1 < 0 || size1 > size2) {
      throw new IllegalArgumentException(
          "sizes: got size1 " + size1 + ", size2 " + size2 + ", want 0 <= size1 <= size2");
    }
    if (size1 == 0 || size1 == size2) {
      return new Plan(List.of(), 0, 0);
    }
    int level = Long.numberOfTrailingZeros(size1);
    long index = (size1 - 1) >>> level;
    Plan p = plan(index, level, size2);
    // A power-of-two size1 is the first node itself; the verifier already holds it as root1.
    return index == 0 ? p.skipFirst() : p;
  }

  /**
   * Lists the node (level, index), the siblings on its path up to the fork with the path to the
   * right edge of the tree, then the nodes covering the right remainder (the ephemeral sibling,
   * lowest first), then those covering the left remainder (lowest first).
   */
  private static Plan plan(long index, int level, long size) {
    int inner = bitLength(index ^ (size >>> level)) - 1;
    int forkLevel = level + inner;
    long forkIndex = index >>> inner;
    long forkBegin = forkIndex << forkLevel;
    long forkEnd = (forkIndex + 1) << forkLevel;

    List<NodeId> ids = new ArrayList<>();
    NodeId node = new NodeId(level, index);
    ids.add(node);
    for (; node.level() < forkLevel; node = node.parent()) {
      ids.add(node.sibling());
    }
    int begin = ids.size();
    CompactRange.rangeNodes(forkEnd, size, ids);
    Collections.reverse(ids.subList(begin, ids.size()));
    int end = ids.size();
    CompactRange.rangeNodes(0, forkBegin, ids);
    Collections.reverse(ids.subList(end, ids.size()));
    return new Plan(ids, begin, end);
  }

  /** Node ids plus the block [begin, end) of them that rehash into one ephemeral entry. */
  private static final class Plan {
    final List<NodeId> ids;
    final int begin;
    final int end;

    Plan(List<NodeId> ids, int begin, int end) {
      this.ids = List.copyOf(ids);
      this.begin = begin;
      this.end = end;
    }

    Plan skipFirst() {
      return new Plan(ids.subList(1, ids.size()), Math.max(0, begin - 1), Math.max(0, end - 1));
    }

    List<byte[]> fetch(HashSource src) {
      List<byte[]> out = new ArrayList<>(ids.size());
      for (int i = 0; i < ids.size(); i++) {
        byte[] hash = fetchOne(src, ids.get(i));
        if (i >= begin && i < end) {
          for (i++; i < end; i++) {
            hash = Rfc6962.nodeHash(fetchOne(src, ids.get(i)), hash);
          }
          i--;
        }
        out.add(hash);
      }
      return out;
    }

    private static byte[] fetchOne(HashSource src, NodeId id) {
      byte[] h = src.hash(id);
      Rfc6962.checkHash("hash of " + id, h);
      return h.clone();
    }
  }

  private static int bitLength(long x) {
    return 64 - Long.numberOfLeadingZeros(x);
  }
}
