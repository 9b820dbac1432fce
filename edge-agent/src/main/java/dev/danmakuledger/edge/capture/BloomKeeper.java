package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.bloom.BloomFilter;
import dev.danmakuledger.edge.bloom.BloomSnapshot;
import dev.danmakuledger.edge.bloom.RotatingBloom;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's rotating Bloom filter across restarts (docs/edge-agent.md "Bloom filter sizing"):
 * restored from the stored snapshot plus the keys captured after it (or rebuilt from the newest n
 * records), fed only with keys whose transaction committed, and snapshotted every {@value
 * #SNAPSHOT_EVERY} records, on rotation and on close. Written by the holder of the capture queue's
 * turn (the writer thread, or a thread committing a lone capture) or, in the post-commit step the
 * writer hands over, by the planner thread; the writer waits for that step before it reads the
 * filter or gives up the turn, so reads and writes never overlap.
 */
final class BloomKeeper {
  private static final Logger LOG = LoggerFactory.getLogger(BloomKeeper.class);

  /** New records between Bloom snapshots (also taken on rotation and on close). */
  static final long SNAPSHOT_EVERY = 50_000;

  private final EdgeStore store;
  private final RotatingBloom bloom;
  private long sinceSnapshot;
  private boolean rotated;

  private BloomKeeper(EdgeStore store, RotatingBloom bloom) {
    this.store = store;
    this.bloom = bloom;
  }

  /** The filter of a log of {@code size} committed records. */
  static BloomKeeper restore(EdgeStore store, BloomConfig config, Clock clock, long size)
      throws StoreException {
    Optional<BloomSnapshot> snapshot = store.loadBloom();
    RotatingBloom restored = null;
    long replayFrom = Math.max(0, size - config.expectedItems());
    if (snapshot.isPresent() && snapshot.get().coveredSize() <= size) {
      try {
        restored = RotatingBloom.restore(config, clock, snapshot.get());
        replayFrom = snapshot.get().coveredSize();
      } catch (IllegalArgumentException e) {
        LOG.info("bloom snapshot not usable ({}); rebuilding from the records", e.getMessage());
      }
    }
    if (restored == null) {
      restored = RotatingBloom.create(config, clock);
    }
    List<String> keys = store.keysFrom(replayFrom);
    for (String key : keys) {
      restored.put(key);
    }
    LOG.debug("bloom filter ready: replayed {} keys from index {}", keys.size(), replayFrom);
    return new BloomKeeper(store, restored);
  }

  boolean mightContain(BloomFilter.Hash hash) {
    return bloom.mightContain(hash);
  }

  /** Adds the keys of a committed transaction. */
  void addCommitted(List<BloomFilter.Hash> hashes) {
    long rotationsBefore = bloom.rotations();
    for (BloomFilter.Hash h : hashes) {
      bloom.put(h);
    }
    sinceSnapshot += hashes.size();
    rotated |= bloom.rotations() != rotationsBefore;
  }

  /**
   * Saves a snapshot of a log of {@code size} records if one is due (after {@value #SNAPSHOT_EVERY}
   * records or a rotation); a failed save is logged and retried on the next call.
   */
  void snapshotIfDue(long size) {
    if (sinceSnapshot < SNAPSHOT_EVERY && !rotated) {
      return;
    }
    try {
      save(size);
    } catch (StoreException e) {
      LOG.warn("cannot save the bloom snapshot: {}", e.getMessage());
    }
  }

  /** Saves the snapshot of a log of {@code size} records. */
  void save(long size) throws StoreException {
    store.saveBloom(bloom.snapshot(size));
    sinceSnapshot = 0;
    rotated = false;
  }

  long memoryBytes() {
    return bloom.memoryBytes();
  }

  long rotations() {
    return bloom.rotations();
  }
}
