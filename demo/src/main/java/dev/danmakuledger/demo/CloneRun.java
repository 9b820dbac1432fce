package dev.danmakuledger.demo;

import dev.danmakuledger.edge.sync.SyncStoppedException;
import java.util.Set;

/**
 * What happened when the offline agent's data directory was copied and both copies captured on
 * their own (docs/demo.md, step 8; docs/architecture.md §4 on forks).
 *
 * @param originalSynced the original's sync completed
 * @param stopReason why the clone's sync stopped, or null if it did not stop
 * @param cloneKeys idempotency keys of the messages the clone captured after the copy
 */
record CloneRun(
    boolean originalSynced, SyncStoppedException.Reason stopReason, Set<String> cloneKeys) {
  CloneRun {
    cloneKeys = Set.copyOf(cloneKeys);
  }
}
