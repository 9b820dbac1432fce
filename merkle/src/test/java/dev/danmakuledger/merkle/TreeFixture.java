package dev.danmakuledger.merkle;

import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.proof.HashSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A tree built with the production CompactRange, keeping every completed node for proofs. */
public final class TreeFixture implements HashSource {
  private final Map<NodeId, byte[]> nodes = new HashMap<>();
  private final CompactRange range = CompactRange.empty();

  public TreeFixture(List<byte[]> leafHashes) {
    for (byte[] h : leafHashes) {
      range.append(h, nodes::put);
    }
  }

  public byte[] root() {
    return range.root();
  }

  @Override
  public byte[] hash(NodeId id) {
    byte[] h = nodes.get(id);
    if (h == null) {
      throw new IllegalStateException("node " + id + " not stored");
    }
    return h;
  }
}
