package dev.danmakuledger.merkle.proof;

import dev.danmakuledger.merkle.NodeId;

/** Supplies stored hashes of perfect-subtree nodes, e.g. those reported by a NodeVisitor. */
@FunctionalInterface
public interface HashSource {
  /**
   * Returns the hash of the perfect subtree {@code id}; only nodes inside the tree are asked for.
   *
   * @throws IllegalStateException if the hash is not available
   */
  byte[] hash(NodeId id);
}
