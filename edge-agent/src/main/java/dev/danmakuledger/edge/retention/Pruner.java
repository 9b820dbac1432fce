package dev.danmakuledger.edge.retention;

import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import java.time.Clock;
import java.time.Duration;

/**
 * Retention pruning (docs/edge-agent.md "Retention and pruning"): drops the canonical bytes of
 * records the server has answered for for good, keeping everything dedupe, verification and the
 * Merkle tree need. A record is pruned only when all hold:
 *
 * <ul>
 *   <li>a stored server receipt covers it (receipt size &gt; index), so the server holds the bytes
 *       and the sync client never sends it again;
 *   <li>its server outcome is final (CONFIRMED, DUPLICATE, CONFLICT or REJECTED, not PENDING);
 *   <li>it was captured at least the retention before now (by the injected clock);
 *   <li>it is not the newest record, whose capture clock seeds the device clock at start.
 * </ul>
 */
public final class Pruner {
  private final EdgeStore store;
  private final Clock clock;

  public Pruner(EdgeStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Prunes what {@code olderThan} allows, in one transaction.
   *
   * @throws IllegalArgumentException if {@code olderThan} is not positive (0 means keep forever)
   */
  public PruneReport prune(Duration olderThan) throws StoreException {
    if (olderThan == null || olderThan.isNegative() || olderThan.isZero()) {
      throw new IllegalArgumentException(
          "retention: got " + olderThan + ", want a positive duration (0 keeps records forever)");
    }
    long now = clock.millis();
    long capturedBefore = now - olderThan.toMillis();
    long covered = store.latestReceipt().map(StoredCheckpoint::size).orElse(0L);
    long newest = store.logState().size() - 1;
    long pruned = store.prune(covered, Math.max(0, newest), capturedBefore, now);
    return new PruneReport(pruned, store.prunedCount(), covered, capturedBefore);
  }
}
