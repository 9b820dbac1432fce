package dev.danmakuledger.bench.proofs;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.ArrayList;
import java.util.List;

/**
 * RFC 9162 §2.1.3.1 inclusion proofs computed from the definition, from all leaf hashes, with no
 * stored interior nodes: the work a log server without a node store does per proof (O(n) hashes).
 */
final class RecomputedProofs {
  private RecomputedProofs() {}

  /** PATH(m, D[0:n]) over the leaf hashes. */
  static List<byte[]> inclusion(byte[][] leaves, int index) {
    if (index < 0 || index >= leaves.length) {
      throw new IllegalArgumentException(
          "index: got " + index + ", want 0.." + (leaves.length - 1));
    }
    List<byte[]> proof = new ArrayList<>();
    path(leaves, index, 0, leaves.length, proof);
    return proof;
  }

  private static void path(byte[][] leaves, int m, int lo, int hi, List<byte[]> out) {
    int n = hi - lo;
    if (n == 1) {
      return;
    }
    int k = Integer.highestOneBit(n - 1);
    if (m < k) {
      path(leaves, m, lo, lo + k, out);
      out.add(root(leaves, lo + k, hi));
    } else {
      path(leaves, m - k, lo + k, hi, out);
      out.add(root(leaves, lo, lo + k));
    }
  }

  /** MTH(D[lo:hi]). */
  static byte[] root(byte[][] leaves, int lo, int hi) {
    int n = hi - lo;
    if (n == 1) {
      return leaves[lo];
    }
    int k = Integer.highestOneBit(n - 1);
    return Rfc6962.nodeHash(root(leaves, lo, lo + k), root(leaves, lo + k, hi));
  }
}
