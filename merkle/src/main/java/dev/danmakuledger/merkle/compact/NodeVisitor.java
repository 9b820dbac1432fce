package dev.danmakuledger.merkle.compact;

import dev.danmakuledger.merkle.NodeId;

/** Receives each perfect-subtree node a {@link CompactRange} completes, leaves included. */
@FunctionalInterface
public interface NodeVisitor {
  /** Called once per completed node, children before parents; {@code hash} must not be mutated. */
  void visit(NodeId id, byte[] hash);
}
