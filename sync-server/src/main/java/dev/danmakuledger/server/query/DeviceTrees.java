package dev.danmakuledger.server.query;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.HashSource;
import dev.danmakuledger.merkle.proof.Proofs;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.NodeBlock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Roots and proofs of verified device logs (RFC 9162 §2.1), computed from the perfect-subtree
 * hashes stored at ingest from {@link NodeBlock#LOWEST_STORED_LEVEL} up, and below that from the
 * records themselves (docs/architecture.md §6, "Device log hashes"): a root or a proof reads O(log
 * n) stored nodes and hashes the records of at most two aligned runs of 256.
 */
public final class DeviceTrees {
  /** Leaves in the aligned run a node below the lowest stored level lies in. */
  private static final long RUN = 1L << NodeBlock.LOWEST_STORED_LEVEL;

  private final LedgerStore store;

  public DeviceTrees(LedgerStore store) {
    this.store = store;
  }

  /**
   * A hash source reading each node block at most once per call, and the records of each aligned
   * run of 256 it needs once.
   */
  private HashSource source(String deviceId) {
    List<NodeBlock> loaded = new ArrayList<>();
    Map<Long, byte[]> leaves = new HashMap<>();
    return id -> {
      if (id.level() < NodeBlock.LOWEST_STORED_LEVEL) {
        return subtree(deviceId, id, leaves);
      }
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

  /**
   * The hash of a node below the lowest stored level, from the leaf hashes of its records: those of
   * the aligned run of 256 it lies in are read and hashed into {@code leaves} the first time.
   */
  private byte[] subtree(String deviceId, NodeId id, Map<Long, byte[]> leaves) {
    if (!leaves.containsKey(id.begin()) || !leaves.containsKey(id.end() - 1)) {
      long from = id.begin() - Math.floorMod(id.begin(), RUN);
      for (DeviceRecordRow r : store.records(deviceId, from, from + RUN)) {
        leaves.put(r.index(), Rfc6962.leafHash(r.canonical()));
      }
    }
    List<byte[]> run = new ArrayList<>((int) (id.end() - id.begin()));
    for (long i = id.begin(); i < id.end(); i++) {
      byte[] leaf = leaves.get(i);
      if (leaf == null) {
        throw new IllegalStateException("device " + deviceId + ": leaf " + i + " is not verified");
      }
      run.add(leaf);
    }
    return Rfc6962.perfectRoot(run, 0, run.size());
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
