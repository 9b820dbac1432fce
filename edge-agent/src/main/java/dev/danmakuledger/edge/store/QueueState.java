package dev.danmakuledger.edge.store;

import dev.danmakuledger.protocol.wire.SyncAttempt;
import java.util.Optional;

/**
 * The state of the upload queue that {@code edge-agent status}, {@code GET /v1/status} and each
 * batch report (docs/edge-agent.md, "Sync state"). The oldest unsynced capture is derived from the
 * records; the last attempt and the scheduled retry are kept in the meta table by the sync client,
 * so they survive a restart and can be read while another process owns the store.
 *
 * @param oldestUnsyncedAt capture time (epoch ms) of the oldest record without a server outcome, or
 *     null when every record has one
 * @param lastAttempt the last request to the sync server and how it ended, or null (never synced)
 * @param nextRetryAt when the sync client will try again after a failure (epoch ms), or null when
 *     no retry is scheduled
 */
public record QueueState(Long oldestUnsyncedAt, SyncAttempt lastAttempt, Long nextRetryAt) {
  /** Meta row of the last attempt: {@code "<atMillis> <outcome>"}. */
  public static final String LAST_ATTEMPT = "sync_last_attempt";

  /** Meta row of the scheduled retry: epoch ms, or empty when none is scheduled. */
  public static final String NEXT_RETRY = "sync_next_retry_at";

  /** Reads the queue state of a store (also one opened read-only). */
  public static QueueState read(EdgeStore store) throws StoreException {
    return new QueueState(
        store.oldestUnsyncedCapturedAt().orElse(null),
        lastAttempt(store).orElse(null),
        nextRetry(store).orElse(null));
  }

  /** The stored last attempt; a row that does not parse (a damaged file) reads as none. */
  public static Optional<SyncAttempt> lastAttempt(EdgeStore store) throws StoreException {
    Optional<String> row = store.meta(LAST_ATTEMPT);
    if (row.isEmpty()) {
      return Optional.empty();
    }
    String v = row.get();
    int space = v.indexOf(' ');
    try {
      return Optional.of(
          new SyncAttempt(Long.parseLong(v.substring(0, space)), v.substring(space + 1)));
    } catch (RuntimeException unreadable) {
      return Optional.empty();
    }
  }

  /** Stores the last attempt. */
  public static void saveLastAttempt(EdgeStore store, SyncAttempt a) throws StoreException {
    store.putMeta(LAST_ATTEMPT, a.atMillis() + " " + a.outcome());
  }

  /** The stored retry time, if one is scheduled. */
  public static Optional<Long> nextRetry(EdgeStore store) throws StoreException {
    Optional<String> row = store.meta(NEXT_RETRY);
    if (row.isEmpty() || row.get().isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Long.parseLong(row.get()));
    } catch (NumberFormatException unreadable) {
      return Optional.empty();
    }
  }

  /** Stores the scheduled retry time, or that none is scheduled (null). */
  public static void saveNextRetry(EdgeStore store, Long at) throws StoreException {
    store.putMeta(NEXT_RETRY, at == null ? "" : Long.toString(at));
  }
}
