package dev.danmakuledger.server.storage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The proof nodes one verified batch completed (RFC 9162 §2.1.1 perfect subtrees), stored as one
 * row so that ingest writes one row per batch rather than two per record. Ingest stores the nodes
 * from {@link #LOWEST_STORED_LEVEL} up; rows written before hold the lower ones too.
 *
 * @param firstLeaf first leaf index the batch appended
 * @param endLeaf one past the last leaf index the batch appended
 * @param nodes the nodes, in the order the appends completed them
 */
public record NodeBlock(long firstLeaf, long endLeaf, List<NodeRow> nodes) {
  /**
   * The lowest level ingest stores: the subtrees of 256 leaves and above, as C2SP tlog-tiles keeps
   * only tile-boundary hashes. A node below it is a subtree of one aligned run of at most 256
   * records, recomputed from their bundles when a proof needs it (docs/architecture.md §6).
   */
  public static final int LOWEST_STORED_LEVEL = 8;

  /** Bytes per encoded node: level u8, index u64, hash[32]. */
  static final int ENTRY = 1 + 8 + 32;

  public NodeBlock {
    if (firstLeaf < 0 || endLeaf < firstLeaf) {
      throw new IllegalArgumentException(
          "leaf range: got [" + firstLeaf + ", " + endLeaf + "), want 0 <= first <= end");
    }
    nodes = List.copyOf(nodes);
  }

  /** The hash of node (level, index) if this block holds it. */
  public Optional<byte[]> hash(int level, long index) {
    for (NodeRow n : nodes) {
      if (n.level() == level && n.index() == index) {
        return Optional.of(n.hash().clone());
      }
    }
    return Optional.empty();
  }

  static byte[] encode(List<NodeRow> nodes) {
    ByteBuffer buf = ByteBuffer.allocate(nodes.size() * ENTRY);
    for (NodeRow n : nodes) {
      buf.put((byte) n.level()).putLong(n.index()).put(n.hash());
    }
    return buf.array();
  }

  static List<NodeRow> decode(byte[] bytes) {
    if (bytes.length % ENTRY != 0) {
      throw new IllegalStateException(
          "node block: got " + bytes.length + " bytes, want a multiple of " + ENTRY);
    }
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    List<NodeRow> out = new ArrayList<>(bytes.length / ENTRY);
    while (buf.hasRemaining()) {
      int level = buf.get() & 0xFF;
      long index = buf.getLong();
      byte[] hash = new byte[32];
      buf.get(hash);
      out.add(new NodeRow(level, index, hash));
    }
    return out;
  }
}
