package dev.danmakuledger.merkle.hash;

import java.security.MessageDigest;
import java.util.List;

/**
 * The Merkle tree hash functions of RFC 6962 §2.1 / RFC 9162 §2.1.1 with SHA-256: leaf hash {@code
 * SHA-256(0x00 || d)}, interior node hash {@code SHA-256(0x01 || left || right)}, and the empty
 * tree hash {@code SHA-256("")}. The distinct prefixes give second-preimage resistance between
 * leaves and interior nodes.
 */
public final class Rfc6962 {
  /** Size in bytes of every hash produced here. */
  public static final int HASH_SIZE = 32;

  private static final byte LEAF_PREFIX = 0x00;
  private static final byte NODE_PREFIX = 0x01;

  /** One digest per thread, reset by every {@code digest()}: hashing allocates only the result. */
  private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(Sha256::fresh);

  private static final byte[] EMPTY_ROOT = Sha256.fresh().digest();

  private Rfc6962() {}

  /** Returns {@code SHA-256(0x00 || data)}; {@code data} may be empty. */
  public static byte[] leafHash(byte[] data) {
    MessageDigest md = sha256();
    md.update(LEAF_PREFIX);
    md.update(data);
    return md.digest();
  }

  /**
   * Returns {@code SHA-256(0x01 || left || right)}.
   *
   * @throws IllegalArgumentException if either child is not {@link #HASH_SIZE} bytes
   */
  public static byte[] nodeHash(byte[] left, byte[] right) {
    checkHash("left", left);
    checkHash("right", right);
    MessageDigest md = sha256();
    md.update(NODE_PREFIX);
    md.update(left);
    md.update(right);
    return md.digest();
  }

  /**
   * Returns the root of the perfect subtree over {@code count} leaf hashes from {@code from}.
   *
   * @throws IllegalArgumentException unless {@code count} is a power of two
   */
  public static byte[] perfectRoot(List<byte[]> hashes, int from, int count) {
    if (count < 1 || Integer.bitCount(count) != 1) {
      throw new IllegalArgumentException("count: got " + count + ", want a power of two");
    }
    return perfect(hashes, from, count);
  }

  private static byte[] perfect(List<byte[]> hashes, int from, int count) {
    if (count == 1) {
      return hashes.get(from);
    }
    int half = count >>> 1;
    return nodeHash(perfect(hashes, from, half), perfect(hashes, from + half, half));
  }

  /** Returns the root of the empty tree, {@code SHA-256("")}. */
  public static byte[] emptyRoot() {
    return EMPTY_ROOT.clone();
  }

  /**
   * Throws unless {@code hash} is non-null and {@link #HASH_SIZE} bytes long.
   *
   * @param what names the value in the exception message
   */
  public static void checkHash(String what, byte[] hash) {
    if (hash == null) {
      throw new IllegalArgumentException(what + ": got null, want " + HASH_SIZE + " bytes");
    }
    if (hash.length != HASH_SIZE) {
      throw new IllegalArgumentException(
          what + ": got " + hash.length + " bytes, want " + HASH_SIZE);
    }
  }

  /** This thread's digest, reset. */
  private static MessageDigest sha256() {
    MessageDigest md = DIGEST.get();
    md.reset();
    return md;
  }
}
