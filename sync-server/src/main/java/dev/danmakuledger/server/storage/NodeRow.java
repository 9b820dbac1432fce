package dev.danmakuledger.server.storage;

/**
 * A perfect-subtree hash of a device log (RFC 9162 §2.1.1), stored to serve proofs.
 *
 * @param level height above the leaves (0 = leaf)
 * @param index position at that level
 * @param hash the 32-byte hash
 */
public record NodeRow(int level, long index, byte[] hash) {
  public NodeRow {
    if (level < 0 || level > 63) {
      throw new IllegalArgumentException("level: got " + level + ", want 0..63");
    }
    if (index < 0) {
      throw new IllegalArgumentException("index: got " + index + ", want >= 0");
    }
    if (hash == null || hash.length != 32) {
      throw new IllegalArgumentException(
          "hash: got " + (hash == null ? "null" : hash.length + " bytes") + ", want 32 bytes");
    }
  }
}
