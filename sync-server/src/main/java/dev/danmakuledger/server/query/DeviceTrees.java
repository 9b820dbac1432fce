package dev.danmakuledger.server.query;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.proof.HashSource;
import dev.danmakuledger.merkle.proof.Proofs;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.NodeBlock;
import java.util.ArrayList;
import java.util.List;

/**
 * Roots and proofs of verified device logs (RFC 9162 §2.1), computed from the perfect-subtree
 * hashes stored at ingest, so nothing is rehashed: a root reads O(log n) nodes, a proof too.
 */
public final class DeviceTrees {
  private final LedgerStore store;

  public DeviceTrees(LedgerStore store) {
    this.store = store;
  }

  /** A hash source reading each node block at most once per call. */
  private HashSource source(String deviceId) {
    List<NodeBlock> loaded = new ArrayList<>();
    return id -> {
      long lastLeaf = id.end() - 1;
      NodeBlock block = null;
      for (NodeBlock b : loaded) {
        if (b.firstLeaf() <= lastLeaf && lastLeaf < b.endLeaf()) {
          block = b;
        }
      }
      if (block == null) {
        block =
            store
                .nodeBlock(deviceId, lastLeaf)
                .orElseThrow(
                    () ->
                        new IllegalStateException(
                            "device " + deviceId + ": leaf " + lastLeaf + " is not verified"));
        loaded.add(block);
      }
      return block
          .hash(id.level(), id.index())
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "device " + deviceId + ": node " + id + " is not stored"));
    };
  }

  /** Root of the first {@code size} leaves; {@code size} must not exceed the verified size. */
  public byte[] rootAt(String deviceId, long size) {
    List<NodeId> ids = new ArrayList<>();
    CompactRange.rangeNodes(0, size, ids);
    HashSource src = source(deviceId);
    List<byte[]> hashes = new ArrayList<>(ids.size());
    for (NodeId id : ids) {
      hashes.add(src.hash(id));
    }
    return CompactRange.of(0, size, hashes).root();
  }

  public byte[] leafHash(String deviceId, long index) {
    return source(deviceId).hash(new NodeId(0, index));
  }

  public List<byte[]> inclusion(String deviceId, long index, long size) {
    return Proofs.inclusion(index, size, source(deviceId));
  }

  public List<byte[]> consistency(String deviceId, long from, long to) {
    return Proofs.consistency(from, to, source(deviceId));
  }
}
