package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.QueueState;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sync client's side of the queue state (docs/edge-agent.md, "Sync state"): how the last
 * request to the server ended and when the next retry is due, kept in the store's meta table as
 * {@link QueueState} reads them. Bookkeeping never stops a sync: a store that cannot write them is
 * logged and the values are kept in memory. Thread-safe.
 */
final class SyncState {
  private static final Logger LOG = LoggerFactory.getLogger(SyncState.class);

  private final EdgeStore store;
  private final Clock clock;
  private boolean loaded;
  private SyncAttempt last;
  private Long nextRetryAt;

  SyncState(EdgeStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /** The last attempt, also one a previous process stored; null before the first. */
  synchronized SyncAttempt last() {
    load();
    return last;
  }

  /** The retry this process scheduled, or null. */
  synchronized Long nextRetryAt() {
    return nextRetryAt;
  }

  /** Records that a request ended with {@code outcome} (see {@link #outcomeOf}). */
  synchronized void ended(String outcome) {
    load();
    last = new SyncAttempt(clock.millis(), outcome);
    try {
      QueueState.saveLastAttempt(store, last);
    } catch (StoreException e) {
      LOG.warn("cannot store the last sync attempt ({}): {}", outcome, e.getMessage());
    }
  }

  /** Records that the next attempt waits {@code delay} from now. */
  synchronized void retryIn(Duration delay) {
    saveRetry(clock.millis() + delay.toMillis());
  }

  /** Records that the scheduled retry has started (or that none is scheduled any more). */
  synchronized void retrying() {
    if (nextRetryAt != null) {
      saveRetry(null);
    }
  }

  private void saveRetry(Long at) {
    nextRetryAt = at;
    try {
      QueueState.saveNextRetry(store, at);
    } catch (StoreException e) {
      LOG.warn("cannot store the next sync retry time: {}", e.getMessage());
    }
  }

  /** Loads what a previous process stored; a retry it scheduled is void now. */
  private void load() {
    if (loaded) {
      return;
    }
    loaded = true;
    try {
      last = QueueState.lastAttempt(store).orElse(null);
      if (QueueState.nextRetry(store).isPresent()) {
        QueueState.saveNextRetry(store, null);
      }
    } catch (StoreException e) {
      LOG.warn("cannot read the stored sync state: {}", e.getMessage());
    }
  }

  /**
   * The outcome token of a failed request: the server's error code (docs/errors.md), {@code
   * http-<status>} for an answer without a known code, or {@code transport-<kind>} when no answer
   * arrived.
   */
  static String outcomeOf(IOException e) {
    if (e instanceof ServerProblemException p) {
      return p.errorCode().map(c -> c.code()).orElse("http-" + p.status());
    }
    String kind;
    if (e instanceof InterruptedIOException) {
      kind = "timeout";
    } else if (e instanceof ConnectException) {
      kind = "refused";
    } else if (e instanceof NoRouteToHostException) {
      kind = "unreachable";
    } else if (e instanceof UnknownHostException) {
      kind = "dns";
    } else if (e instanceof SSLException) {
      kind = "tls";
    } else {
      kind = "io";
    }
    return SyncAttempt.TRANSPORT + kind;
  }
}
