package dev.danmakuledger.merkle.proof;

import dev.danmakuledger.merkle.VerificationException;
import java.security.MessageDigest;
import java.util.List;

/**
 * Verifies Merkle inclusion proofs (audit paths) as specified in RFC 9162 §2.1.3.2, in the
 * bit-decomposition form of transparency-dev/merkle {@code proof/verify.go}.
 */
public final class InclusionProof {
  private InclusionProof() {}

  /**
   * Checks that {@code proof} shows leaf {@code index} with hash {@code leafHash} is in the tree of
   * {@code size} leaves whose root is {@code root}.
   *
   * @throws InvalidProofException if the index, a hash length or the proof length is wrong
   * @throws RootMismatchException if the proof is well-formed but leads to another root
   */
  public static void verify(long index, long size, byte[] leafHash, List<byte[]> proof, byte[] root)
      throws VerificationException {
    Chain.checkHash("root", root);
    byte[] computed = rootFromProof(index, size, leafHash, proof);
    if (!MessageDigest.isEqual(computed, root)) {
      throw new RootMismatchException("root", root, computed);
    }
  }

  /**
   * Returns the root implied by an inclusion proof, without comparing it to anything.
   *
   * @throws InvalidProofException unless {@code 0 <= index < size}, every hash is 32 bytes and the
   *     proof has exactly the length the index and size require
   */
  public static byte[] rootFromProof(long index, long size, byte[] leafHash, List<byte[]> proof)
      throws InvalidProofException {
    if (index < 0 || index >= size) {
      throw new InvalidProofException("index: got " + index + ", want 0 <= index < size " + size);
    }
    Chain.checkHash("leafHash", leafHash);
    Chain.checkHashes("proof", proof);
    int inner = Chain.innerProofSize(index, size);
    int border = Long.bitCount(index >>> inner);
    if (proof.size() != inner + border) {
      throw new InvalidProofException(
          "proof length for index "
              + index
              + " in size "
              + size
              + ": got "
              + proof.size()
              + ", want "
              + (inner + border));
    }
    byte[] res = Chain.inner(leafHash, proof.subList(0, inner), index);
    return Chain.borderRight(res, proof.subList(inner, proof.size()));
  }
}
