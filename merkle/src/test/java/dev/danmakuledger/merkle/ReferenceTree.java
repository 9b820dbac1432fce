package dev.danmakuledger.merkle;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.ArrayList;
import java.util.List;

/**
 * A deliberately naive, recursive transcription of the RFC 9162 §2.1 definitions: MTH (§2.1.1),
 * PATH (§2.1.3.1) and PROOF/SUBPROOF (§2.1.4.1). It shares nothing with the production code but the
 * two hash functions and serves as the independent oracle for cross-checks.
 */
public final class ReferenceTree {
  private ReferenceTree() {}

  /** MTH(D[n]) over leaf hashes. */
  public static byte[] root(List<byte[]> leafHashes) {
    int n = leafHashes.size();
    if (n == 0) {
      return Rfc6962.emptyRoot();
    }
    if (n == 1) {
      return leafHashes.get(0);
    }
    int k = largestPowerOfTwoBelow(n);
    return Rfc6962.nodeHash(root(leafHashes.subList(0, k)), root(leafHashes.subList(k, n)));
  }

  /** PATH(m, D[n]). */
  public static List<byte[]> path(int m, List<byte[]> leafHashes) {
    int n = leafHashes.size();
    List<byte[]> out = new ArrayList<>();
    if (n <= 1) {
      return out;
    }
    int k = largestPowerOfTwoBelow(n);
    if (m < k) {
      out.addAll(path(m, leafHashes.subList(0, k)));
      out.add(root(leafHashes.subList(k, n)));
    } else {
      out.addAll(path(m - k, leafHashes.subList(k, n)));
      out.add(root(leafHashes.subList(0, k)));
    }
    return out;
  }

  /** PROOF(m, D[n]). */
  public static List<byte[]> proof(int m, List<byte[]> leafHashes) {
    if (m == 0 || m == leafHashes.size()) {
      return new ArrayList<>();
    }
    return subproof(m, leafHashes, true);
  }

  private static List<byte[]> subproof(int m, List<byte[]> d, boolean b) {
    int n = d.size();
    List<byte[]> out = new ArrayList<>();
    if (m == n) {
      if (!b) {
        out.add(root(d));
      }
      return out;
    }
    int k = largestPowerOfTwoBelow(n);
    if (m <= k) {
      out.addAll(subproof(m, d.subList(0, k), b));
      out.add(root(d.subList(k, n)));
    } else {
      out.addAll(subproof(m - k, d.subList(k, n), false));
      out.add(root(d.subList(0, k)));
    }
    return out;
  }

  /** The largest power of two strictly smaller than {@code n}, for {@code n > 1}. */
  private static int largestPowerOfTwoBelow(int n) {
    int k = 1;
    while (k << 1 < n) {
      k <<= 1;
    }
    return k;
  }

  /** Leaf hashes of {@code n} distinct deterministic leaves. */
  public static List<byte[]> leaves(int n) {
    List<byte[]> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(Rfc6962.leafHash(("leaf-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
    return out;
  }
}
