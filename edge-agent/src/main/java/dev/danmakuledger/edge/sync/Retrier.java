package dev.danmakuledger.edge.sync;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a request to the server, retrying transient failures (docs/sync.md, "Failures"): no answer,
 * 429, 5xx and {@code version-conflict} are retried after a full-jitter {@link Backoff} that
 * honours {@code Retry-After}, up to the settings' attempts; then the run stops as {@code
 * UNREACHABLE}. Every attempt's end and every scheduled retry is recorded in the {@link SyncState}.
 */
final class Retrier {
  private static final Logger LOG = LoggerFactory.getLogger(Retrier.class);

  /** A request; a failure without an answer is an {@link IOException}. */
  @FunctionalInterface
  interface Call<T> {
    T run() throws IOException;
  }

  /** Whether a request uploads a batch, whose success is the last sync attempt. */
  enum Kind {
    READ,
    UPLOAD
  }

  private final SyncState state;
  private final Backoff backoff;
  private final Sleeper sleeper;
  private final int maxAttempts;
  private long retries;

  Retrier(SyncState state, Backoff backoff, Sleeper sleeper, int maxAttempts) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("max attempts: got " + maxAttempts + ", want >= 1");
    }
    this.state = state;
    this.backoff = backoff;
    this.sleeper = sleeper;
    this.maxAttempts = maxAttempts;
  }

  /** Requests repeated after a transient failure, by this retrier, so far. */
  long retries() {
    return retries;
  }

  /**
   * Runs {@code call} until it answers. Every failure is the last sync attempt; a success only for
   * an {@link Kind#UPLOAD}, so a read that works does not hide a batch the server keeps refusing.
   *
   * @throws ServerProblemException for a refusal that is not transient
   * @throws SyncStoppedException ({@code UNREACHABLE}) after the last attempt failed, or as the
   *     call threw it
   */
  <T> T call(Kind kind, Call<T> call) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        T answer = call.run();
        if (kind == Kind.UPLOAD) {
          state.ended(SyncAttempt.OK);
        }
        return answer;
      } catch (SyncStoppedException e) {
        throw e;
      } catch (IOException e) {
        if (!failed(attempt, e)) {
          throw e;
        }
      }
    }
  }

  /**
   * Records that attempt {@code attempt} of a request failed with {@code failure} and, if the
   * failure is transient, waits the backoff before the next attempt.
   *
   * @return true if the request should be made again now; false if {@code failure} is a refusal
   *     that is not transient (the caller decides)
   * @throws SyncStoppedException ({@code UNREACHABLE}) if that was the last attempt
   */
  boolean failed(int attempt, IOException failure)
      throws SyncStoppedException, InterruptedException {
    state.ended(SyncState.outcomeOf(failure));
    Duration retryAfter = null;
    if (failure instanceof ServerProblemException e) {
      if (!transientRefusal(e)) {
        return false;
      }
      retryAfter = e.retryAfter().orElse(null);
    }
    if (attempt >= maxAttempts) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.UNREACHABLE,
          "gave up after "
              + attempt
              + " attempts: "
              + failure.getMessage()
              + "; everything is kept locally, sync again later",
          failure);
    }
    retries++;
    Duration wait = backoff.delay(attempt, retryAfter);
    LOG.info("{}; retry {} in {} ms", failure.getMessage(), attempt, wait.toMillis());
    state.retryIn(wait);
    sleeper.sleep(wait);
    state.retrying();
    return true;
  }

  /** Records that an upload sent outside {@link #call} was answered. */
  void uploaded() {
    state.ended(SyncAttempt.OK);
  }

  /** A refusal worth the same request again later: 429, 5xx, {@code version-conflict}. */
  private static boolean transientRefusal(ServerProblemException e) {
    return e.transientFailure() || e.errorCode().orElse(null) == ErrorCode.VERSION_CONFLICT;
  }
}
