package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.LogStateRow;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.merkle.compact.CompactRange;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The device log as last committed: its size and compact range (RFC 6962 in O(log n) hashes,
 * docs/architecture.md §3), from which every plan starts. It moves only when a transaction has
 * committed, so a failed one leaves it untouched. Changed only by the holder of the capture queue's
 * turn (the writer thread, or a thread committing a lone capture); {@link #status()} may be read
 * from any thread.
 */
final class CommittedLog {
  private CompactRange range;
  private long size;
  private volatile LogStatus status;

  private CommittedLog() {}

  /** The committed state of {@code store}. */
  static CommittedLog load(EdgeStore store) throws StoreException {
    CommittedLog log = new CommittedLog();
    log.reload(store);
    return log;
  }

  /**
   * Reads the committed state again (after a failed transaction).
   *
   * @throws StoreException if the persisted compact range does not cover the whole log
   */
  void reload(EdgeStore store) throws StoreException {
    LogStateRow row = store.logState();
    CompactRange loaded =
        row.size() == 0 ? CompactRange.empty() : CompactRange.fromBytes(row.compactRange());
    if (loaded.begin() != 0 || loaded.end() != row.size()) {
      throw new StoreException(
          "log_state compact range covers ["
              + loaded.begin()
              + ", "
              + loaded.end()
              + "), want [0, "
              + row.size()
              + "); run `edge-agent verify`");
    }
    range = loaded;
    size = row.size();
    Optional<StoredCheckpoint> cp = store.latestCheckpoint();
    status =
        new LogStatus(
            size,
            HexFormat.of().formatHex(range.root()),
            cp.map(StoredCheckpoint::note).orElse(null));
  }

  /** Moves to the state a committed plan built. */
  void advance(Plan committed) {
    range = committed.range;
    size = committed.newSize;
    status = new LogStatus(size, HexFormat.of().formatHex(range.root()), committed.note);
  }

  long size() {
    return size;
  }

  CompactRange range() {
    return range;
  }

  LogStatus status() {
    return status;
  }
}
