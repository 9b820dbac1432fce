package dev.danmakuledger.merkle.proof;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.List;

/** Hash chaining shared by the verifiers (RFC 9162 §2.1.3.2 and §2.1.4.2). */
final class Chain {
  private Chain() {}

  /** Returns how many proof entries lie below the fork with the right edge of the tree. */
  static int innerProofSize(long index, long size) {
    return 64 - Long.numberOfLeadingZeros(index ^ (size - 1));
  }

  static byte[] inner(byte[] seed, List<byte[]> proof, long index) {
    for (int i = 0; i < proof.size(); i++) {
      if (((index >>> i) & 1) == 0) {
        seed = Rfc6962.nodeHash(seed, proof.get(i));
      } else {
        seed = Rfc6962.nodeHash(proof.get(i), seed);
      }
    }
    return seed;
  }

  static byte[] innerRight(byte[] seed, List<byte[]> proof, long index) {
    for (int i = 0; i < proof.size(); i++) {
      if (((index >>> i) & 1) == 1) {
        seed = Rfc6962.nodeHash(proof.get(i), seed);
      }
    }
    return seed;
  }

  static byte[] borderRight(byte[] seed, List<byte[]> proof) {
    for (byte[] h : proof) {
      seed = Rfc6962.nodeHash(h, seed);
    }
    return seed;
  }

  static void checkHashes(String what, List<byte[]> proof) throws InvalidProofException {
    for (int i = 0; i < proof.size(); i++) {
      checkHash(what + "[" + i + "]", proof.get(i));
    }
  }

  static void checkHash(String what, byte[] hash) throws InvalidProofException {
    if (hash == null || hash.length != Rfc6962.HASH_SIZE) {
      throw new InvalidProofException(
          what
              + ": got "
              + (hash == null ? "null" : hash.length + " bytes")
              + ", want "
              + Rfc6962.HASH_SIZE
              + " bytes");
    }
  }
}
