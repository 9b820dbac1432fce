package dev.danmakuledger.merkle.proof;

import dev.danmakuledger.merkle.VerificationException;
import java.security.MessageDigest;
import java.util.List;

/**
 * Verifies Merkle consistency proofs as specified in RFC 9162 §2.1.4.2, in the bit-decomposition
 * form of transparency-dev/merkle {@code proof/verify.go}: the proof must reproduce both the old
 * and the new root.
 */
public final class ConsistencyProof {
  private ConsistencyProof() {}

  /**
   * Checks that the tree of {@code size2} leaves with root {@code root2} extends the tree of {@code
   * size1} leaves with root {@code root1}. When {@code size1} is 0 any tree extends it and the
   * proof must be empty; when the sizes are equal the proof must be empty and the roots equal.
   *
   * @throws InvalidProofException unless {@code 0 <= size1 <= size2}, every hash is 32 bytes and
   *     the proof has exactly the required length
   * @throws RootMismatchException if the proof is well-formed but does not reproduce a root
   */
  public static void verify(long size1, long size2, byte[] root1, byte[] root2, List<byte[]> proof)
      throws VerificationException {
    if (size1 < 0 || size2 < size1) {
      throw new InvalidProofException(
          "sizes: got size1 " + size1 + ", size2 " + size2 + ", want 0 <= size1 <= size2");
    }
    Chain.checkHash("root1", root1);
    Chain.checkHash("root2", root2);
    Chain.checkHashes("proof", proof);
    if (size1 == size2) {
      checkEmpty(proof, size1, size2);
      if (!MessageDigest.isEqual(root1, root2)) {
        throw new RootMismatchException("root2 of equal-size tree", root2, root1);
      }
      return;
    }
    if (size1 == 0) {
      checkEmpty(proof, size1, size2);
      return;
    }
    if (proof.isEmpty()) {
      throw new InvalidProofException(
          "proof length from " + size1 + " to " + size2 + ": got 0, want > 0");
    }
    int inner = Chain.innerProofSize(size1 - 1, size2);
    int border = Long.bitCount((size1 - 1) >>> inner);
    int shift = Long.numberOfTrailingZeros(size1);
    inner -= shift;

    byte[] seed;
    int start;
    if (size1 == 1L << shift) {
      seed = root1;
      start = 0;
    } else {
      seed = proof.get(0);
      start = 1;
    }
    if (proof.size() != start + inner + border) {
      throw new InvalidProofException(
          "proof length from "
              + size1
              + " to "
              + size2
              + ": got "
              + proof.size()
              + ", want "
              + (start + inner + border));
    }
    List<byte[]> rest = proof.subList(start, proof.size());
    long mask = (size1 - 1) >>> shift;

    byte[] hash1 = Chain.innerRight(seed, rest.subList(0, inner), mask);
    hash1 = Chain.borderRight(hash1, rest.subList(inner, rest.size()));
    if (!MessageDigest.isEqual(hash1, root1)) {
      throw new RootMismatchException("root1", root1, hash1);
    }
    byte[] hash2 = Chain.inner(seed, rest.subList(0, inner), mask);
    hash2 = Chain.borderRight(hash2, rest.subList(inner, rest.size()));
    if (!MessageDigest.isEqual(hash2, root2)) {
      throw new RootMismatchException("root2", root2, hash2);
    }
  }

  private static void checkEmpty(List<byte[]> proof, long size1, long size2)
      throws InvalidProofException {
    if (!proof.isEmpty()) {
      throw new InvalidProofException(
          "proof length from " + size1 + " to " + size2 + ": got " + proof.size() + ", want 0");
    }
  }
}
