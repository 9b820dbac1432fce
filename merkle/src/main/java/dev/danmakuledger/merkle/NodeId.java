package dev.danmakuledger.merkle;

/**
 * Identifies a perfect subtree of a Merkle tree (RFC 9162 §2.1.1): the node at {@code level} (0 =
 * leaf) that covers leaves {@code [index << level, (index + 1) << level)}.
 *
 * @param level height of the node above the leaves, 0..63
 * @param index position of the node among nodes of the same level, counted from 0
 */
public record NodeId(int level, long index) {

  /** Checks that the node covers a range of leaves representable as non-negative longs. */
  public NodeId {
    if (level < 0 || level > 62) {
      throw new IllegalArgumentException("level: got " + level + ", want 0..62");
    }
    if (index < 0 || index > (Long.MAX_VALUE >>> level)) {
      throw new IllegalArgumentException(
          "index: got " + index + ", want 0.." + (Long.MAX_VALUE >>> level) + " at level " + level);
    }
  }

  /** Returns the first leaf index covered by this node. */
  public long begin() {
    return index << level;
  }

  /** Returns the leaf index just past the last leaf covered by this node. */
  public long end() {
    return (index + 1) << level;
  }

  /** Returns the parent node. */
  public NodeId parent() {
    return new NodeId(level + 1, index >>> 1);
  }

  /** Returns the other child of this node's parent. */
  public NodeId sibling() {
    return new NodeId(level, index ^ 1);
  }
}
