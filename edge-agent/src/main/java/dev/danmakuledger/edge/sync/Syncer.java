package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.capture.DedupeStats;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes the device log to the sync server (docs/architecture.md §4, docs/sync.md).
 *
 * <p>A run resumes where the server's verified size V says ({@link Resumer}: a quarantine, a server
 * ahead of the device or a fork stops it there), stores outcomes and the receipt the device lacks
 * for {@code [0, V)} ({@link Acks}) — unless the run before it on this syncer ended with every
 * batch answered, in which case it starts where the last reply left the log — then sends {@code [V,
 * size)} in batches ({@link BatchCutter}), each with a checkpoint for exactly its end signed over
 * the verified prefix with the batch's leaves appended. Up to the window of {@link
 * SyncSettings#window()} and the server's announced window of batches are in flight at once ({@link
 * BatchWindow}); their replies are taken in log order, and a batch's outcomes and receipt are
 * checked and stored before the next one's.
 *
 * <p>Failures end the window (the batches after the failed one are abandoned): connection errors,
 * timeouts, 429 and 5xx are sent again, from the failed batch on, after a full-jitter backoff
 * honouring {@code Retry-After} ({@link Retrier}); 409 size-mismatch resumes from the server's size
 * again; 413 halves the batch ({@link BatchLimit}); 401/403, forks and bad proofs stop the run with
 * a {@link SyncStoppedException}. Nothing local is ever deleted.
 *
 * <p>Not thread-safe: one run at a time per device. Built by {@link #builder}.
 */
public final class Syncer {
  private static final Logger LOG = LoggerFactory.getLogger(Syncer.class);

  /** Size-mismatch answers tolerated in one run before giving up. */
  static final int MAX_RESUMES = 16;

  private final EdgeStore store;
  private final SyncSettings settings;
  private final SyncState state;
  private final Retrier retrier;
  private final Uplink uplink;
  private final Resumer resumer;
  private final Acks acks;
  private final BatchCutter cutter;
  private final BatchWindow window;

  /**
   * The prefix the server last verified, kept across runs so that a run resuming at or after it
   * reads only the leaves after it.
   */
  private LogPrefix verified = LogPrefix.EMPTY;

  /**
   * Whether the last run ended with every batch answered and stored, so that {@link #verified} is
   * what the server verified last to this syncer's knowledge: the next run then starts there
   * without reading the server's size first (docs/sync.md, "One run"). A server whose size moved
   * meanwhile answers that run's first batch with size-mismatch, and the run resumes from the
   * server's size as after any size-mismatch.
   */
  private boolean verifiedIsCurrent;

  private Syncer(Builder b) {
    this.store = b.store;
    this.settings = b.settings;
    this.state = new SyncState(b.store, b.clock);
    Backoff backoff =
        b.backoff != null
            ? b.backoff
            : new Backoff(
                b.settings.backoffBase(), b.settings.backoffCap(), new SecureRandom()::nextDouble);
    this.retrier = new Retrier(state, backoff, b.sleeper, b.settings.maxAttempts());
    b.client.checkReceiptsWith(b.receipts);
    this.uplink = new Uplink(b.client, b.identity, retrier, b.store, state, b.metadata, b.clock);
    this.resumer = new Resumer(b.store, b.identity, uplink);
    this.acks = new Acks(b.store, b.identity, b.receipts, uplink, b.clock);
    this.cutter = new BatchCutter(b.store, b.identity);
    this.window = new BatchWindow(uplink);
  }

  /**
   * A syncer of {@code identity}'s log in {@code store}, sending through {@code client} and
   * checking receipts with {@code receipts} (keys from enrolment). By default it uses {@link
   * SyncSettings#defaults()}, full-jitter backoff between the settings' base and cap drawn from a
   * {@link SecureRandom}, real sleeps, and reports no counters with its batches.
   */
  public static Builder builder(
      EdgeStore store,
      DeviceIdentity identity,
      SyncClient client,
      ReceiptVerifier receipts,
      Clock clock) {
    return new Builder(store, identity, client, receipts, clock);
  }

  /** The batch metadata of a device's dedupe counters. */
  public static BatchMetadata metadataOf(DedupeStats s) {
    return new BatchMetadata(s.checks(), s.maybes(), s.duplicates(), s.falsePositives());
  }

  /** How the last request ended and when the next retry is due (docs/edge-agent.md). */
  SyncState state() {
    return state;
  }

  /** Runs {@link #sync(SyncProgress)} without progress reporting. */
  public SyncReport sync() throws IOException, InterruptedException {
    return sync(SyncProgress.none());
  }

  /**
   * Sends everything captured before the call and stores the answers.
   *
   * @throws SyncStoppedException when the run cannot finish (see its reason); what was accepted
   *     before is stored
   * @throws IOException if the local store fails
   */
  public SyncReport sync(SyncProgress progress) throws IOException, InterruptedException {
    long retriesBefore = retrier.retries();
    int batches = 0;
    long recordsSent = 0;
    int resumes = 0;
    int attempts = 0;
    long target = store.logState().size();
    if (!verifiedIsCurrent) {
      verified = resume();
    }
    verifiedIsCurrent = false;
    BatchLimit limit = BatchLimit.NONE;
    progress.update(verified.size(), target);
    try {
      while (verified.size() < target) {
        int room = Math.min(settings.window(), uplink.serverWindow());
        for (LogPrefix tip = window.tip(verified);
            window.size() < room && tip.size() < target;
            tip = window.tip(verified)) {
          long backlog = target - tip.size();
          window.send(cutter.cut(tip, (int) Math.min(backlog, limit.batchFor(settings, backlog))));
        }
        BatchWindow.Reply reply = window.next();
        if (reply.failure() == null) {
          retrier.uploaded();
          acks.accept(reply.batch(), reply.response());
          verified = reply.batch().prefix();
          attempts = 0;
          batches++;
          recordsSent += reply.batch().size();
          progress.update(verified.size(), target);
          continue;
        }
        List<Batch> abandoned = window.abandon();
        Batch batch = reply.batch();
        IOException failure = reply.failure();
        if (retrier.failed(++attempts, failure)) {
          if (!(failure instanceof ServerProblemException)) {
            // no answer: the server may have stored this batch and some after it, their replies
            // lost with the connection; continue from what it verified rather than upload them
            // again (docs/sync.md, "Failures")
            verified = resume();
            List<Batch> sent = new ArrayList<>(abandoned.size() + 1);
            sent.add(batch);
            sent.addAll(abandoned);
            for (Batch b : sent) {
              if (b.end() <= verified.size()) {
                batches++;
                recordsSent += b.size();
              }
            }
          }
          continue;
        }
        ServerProblemException e = (ServerProblemException) failure;
        attempts = 0;
        if (e.errorCode().orElse(null) == ErrorCode.SIZE_MISMATCH) {
          if (++resumes > MAX_RESUMES) {
            throw new SyncStoppedException(
                SyncStoppedException.Reason.PROTOCOL,
                "the server answered size-mismatch " + resumes + " times in one run; last: " + e,
                e);
          }
          LOG.info("server verified size moved ({}); resuming from the server's size", e.code());
          verified = resume();
          continue;
        }
        if (e.status() == 413 && batch.size() > 1) {
          limit = BatchLimit.belowRefused(batch.size());
          LOG.info(
              "server refused a batch of {} as too large; trying {}",
              batch.size(),
              limit.records());
          continue;
        }
        throw uplink.stopped(e);
      }
      verifiedIsCurrent = true;
    } finally {
      window.abandon();
    }
    return new SyncReport(
        target,
        verified.size(),
        batches,
        recordsSent,
        retrier.retries() - retriesBefore,
        resumes,
        store.outcomeCounts(),
        store.latestReceipt().map(StoredCheckpoint::size).orElse(-1L));
  }

  /**
   * The prefix the server has verified, once the local log is checked against it and the outcomes
   * and receipt the device lacks up to there are stored.
   */
  private LogPrefix resume() throws IOException, InterruptedException {
    Resumer.Point at = resumer.resume(verified);
    acks.backfill(at);
    return at.verified();
  }

  /**
   * How a {@link Syncer} is wired. Each setter replaces a default; {@link #build()} may be called
   * once per syncer wanted.
   */
  public static final class Builder {
    private final EdgeStore store;
    private final DeviceIdentity identity;
    private final SyncClient client;
    private final ReceiptVerifier receipts;
    private final Clock clock;
    private SyncSettings settings = SyncSettings.defaults();
    private Backoff backoff;
    private Sleeper sleeper = Sleeper.real();
    private Supplier<BatchMetadata> metadata = () -> null;

    private Builder(
        EdgeStore store,
        DeviceIdentity identity,
        SyncClient client,
        ReceiptVerifier receipts,
        Clock clock) {
      this.store = Objects.requireNonNull(store, "store");
      this.identity = Objects.requireNonNull(identity, "identity");
      this.client = Objects.requireNonNull(client, "client");
      this.receipts = Objects.requireNonNull(receipts, "receipts");
      this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Batch sizes and attempts per request (also the default backoff's base and cap). */
    public Builder settings(SyncSettings settings) {
      this.settings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /** The waits between retries, e.g. with a seeded jitter so that a run can be repeated. */
    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /** How to wait between retries (tests record the waits instead). */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /**
     * The device's dedupe counters to report with each batch ({@link #metadataOf}); a supplier may
     * answer null to report nothing.
     */
    public Builder metadata(Supplier<BatchMetadata> metadata) {
      this.metadata = Objects.requireNonNull(metadata, "metadata");
      return this;
    }

    public Syncer build() {
      return new Syncer(this);
    }
  }
}
