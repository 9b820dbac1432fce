package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.capture.DedupeStats;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.OutcomeUpdate;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.AcksResponse;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes the device log to the sync server (docs/architecture.md §4, docs/sync.md).
 *
 * <p>A run reads the server's verified size V and root, checks that the local log has the same root
 * at V (else the logs forked and nothing is sent), fetches stored outcomes the device lacks for
 * {@code [0, V)} (replies lost earlier), then sends {@code [V, size)} in batches. Each batch
 * carries a checkpoint for exactly its end, signed now over the compact range of the verified
 * prefix with the batch's leaves appended. An accepted batch's outcomes and the server receipt
 * (verified against the server key and the device's own checkpoint) are stored before the next.
 *
 * <p>Failures: connection errors, timeouts, 429 and 5xx are retried with full-jitter backoff
 * honouring {@code Retry-After}; 409 size-mismatch re-reads V and resumes there; 413 halves the
 * batch; 401/403, forks and bad proofs stop the run with a {@link SyncStoppedException}. Nothing
 * local is ever deleted.
 *
 * <p>Not thread-safe: one run at a time per device.
 */
public final class Syncer {
  private static final Logger LOG = LoggerFactory.getLogger(Syncer.class);
  private static final HexFormat HEX = HexFormat.of();

  /** Size-mismatch answers tolerated in one run before giving up. */
  static final int MAX_RESUMES = 16;

  /** Outcomes fetched per {@code /acks} request. */
  static final int ACKS_PAGE = 1000;

  private final EdgeStore store;
  private final DeviceIdentity identity;
  private final SyncClient client;
  private final ReceiptVerifier receipts;
  private final NoteVerifier deviceVerifier;
  private final SyncSettings settings;
  private final Backoff backoff;
  private final Sleeper sleeper;
  private final Clock clock;
  private final Supplier<BatchMetadata> metadata;
  private final SyncState state;
  private final Refusals refusals;
  private final ReportSigner reports;

  /** Compact range of {@code [0, range.end())}, the prefix last confirmed by the server. */
  private CompactRange range;

  /** Every record below this index has a stored outcome. */
  private long outcomesBelow;

  /**
   * @param metadata the edge duplicate counters to report with each batch
   */
  public Syncer(
      EdgeStore store,
      DeviceIdentity identity,
      SyncClient client,
      NoteVerifier serverVerifier,
      SyncSettings settings,
      Backoff backoff,
      Sleeper sleeper,
      Clock clock,
      Supplier<BatchMetadata> metadata) {
    this(
        store,
        identity,
        client,
        ReceiptVerifier.legacyOnly(Objects.requireNonNull(serverVerifier, "serverVerifier")),
        settings,
        backoff,
        sleeper,
        clock,
        metadata);
  }

  /**
   * @param receipts checks the server's receipts (cosignature, or the first server key)
   * @param metadata the edge duplicate counters to report with each batch
   */
  public Syncer(
      EdgeStore store,
      DeviceIdentity identity,
      SyncClient client,
      ReceiptVerifier receipts,
      SyncSettings settings,
      Backoff backoff,
      Sleeper sleeper,
      Clock clock,
      Supplier<BatchMetadata> metadata) {
    this.store = Objects.requireNonNull(store, "store");
    this.identity = Objects.requireNonNull(identity, "identity");
    this.client = Objects.requireNonNull(client, "client");
    this.receipts = Objects.requireNonNull(receipts, "receipts");
    this.deviceVerifier = NoteVerifier.ofEd25519(identity.origin(), identity.signer().publicKey());
    this.settings = Objects.requireNonNull(settings, "settings");
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.metadata = Objects.requireNonNull(metadata, "metadata");
    this.state = new SyncState(store, clock);
    this.refusals = new Refusals(identity.deviceId());
    this.reports = new ReportSigner(store, identity, clock);
  }

  /** How the last request ended and when the next retry is due (docs/edge-agent.md). */
  SyncState state() {
    return state;
  }

  /**
   * The counters to report with the batch from {@code oldSize} to {@code checkpoint}, stamped with
   * this device's clock for the server's skew, with the upload queue's state (docs/sync.md, "Queue
   * state"), numbered and signed by the device key ("Signed reports"); null when the supplier has
   * none (the server then leaves the device's counters, skew and queue state as they were).
   */
  private BatchMetadata metadata(long oldSize, Checkpoint checkpoint) throws IOException {
    BatchMetadata m = metadata.get();
    if (m == null) {
      return null;
    }
    return reports.sign(
        m.sentAt(clock.millis())
            .withQueue(store.oldestUnsyncedCapturedAt().orElse(null), state.last()),
        oldSize,
        checkpoint);
  }

  /** The batch metadata of a device's dedupe counters. */
  public static BatchMetadata metadataOf(DedupeStats s) {
    return new BatchMetadata(s.checks(), s.maybes(), s.duplicates(), s.falsePositives());
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
    Tally t = new Tally();
    long target = store.logState().size();
    long verified = resume(t);
    int refusedAbove = Integer.MAX_VALUE;
    progress.update(verified, target);
    while (verified < target) {
      int batchSize = Math.min(refusedAbove, settings.batchFor(target - verified));
      long end = Math.min(target, verified + batchSize);
      List<StoredRecord> records = store.records(verified, (int) (end - verified));
      if (records.size() != end - verified) {
        throw new IOException(
            "store: got "
                + records.size()
                + " records from index "
                + verified
                + ", want "
                + (end - verified));
      }
      records = records.subList(0, BatchBody.fitting(records));
      end = verified + records.size();
      CompactRange next = range.copy();
      List<WireRecord> wire = new ArrayList<>(records.size());
      for (StoredRecord r : records) {
        if (r.pruned()) {
          throw new SyncStoppedException(
              SyncStoppedException.Reason.PROTOCOL,
              "record "
                  + r.index()
                  + " was pruned after a server receipt covered it, but the server now verifies"
                  + " only "
                  + verified
                  + " records and asks for it again; its bytes are gone from this device, the"
                  + " server's copy must be restored. Nothing was sent");
        }
        next.append(r.leafHash());
        wire.add(new WireRecord(r.index(), Base64.getEncoder().encodeToString(r.canonical())));
      }
      Checkpoint head = new Checkpoint(identity.origin(), end, next.root());
      String note = Checkpoints.sign(head, identity.signer());
      long from = verified;
      BatchResponse response;
      try {
        // Metadata per attempt: a retry reports the failure before it.
        response =
            withRetries(
                () ->
                    client.postBatch(
                        identity.deviceId(),
                        new BatchRequest(from, wire, note, metadata(from, head))),
                t,
                true);
      } catch (ServerProblemException e) {
        if (e.errorCode().orElse(null) == ErrorCode.SIZE_MISMATCH) {
          if (++t.resumes > MAX_RESUMES) {
            throw new SyncStoppedException(
                SyncStoppedException.Reason.PROTOCOL,
                "the server answered size-mismatch " + t.resumes + " times in one run; last: " + e,
                e);
          }
          LOG.info("server verified size moved ({}); resuming from the server's size", e.code());
          verified = resume(t);
          continue;
        }
        if (e.status() == 413) {
          if (end - verified == 1) {
            throw refusals.stopped(e);
          }
          refusedAbove = (int) Math.max(1, (end - verified) / 2);
          LOG.info(
              "server refused a batch of {} as too large; trying {}", end - verified, refusedAbove);
          continue;
        }
        throw refusals.stopped(e);
      }
      accept(response, records, verified, end, next, note);
      range = next;
      outcomesBelow = Math.max(outcomesBelow, end);
      verified = end;
      t.batches++;
      t.recordsSent += records.size();
      progress.update(verified, target);
    }
    return new SyncReport(
        target,
        verified,
        t.batches,
        t.recordsSent,
        t.retries,
        t.resumes,
        store.outcomeCounts(),
        store.latestReceipt().map(StoredCheckpoint::size).orElse(-1L));
  }

  /**
   * Reads the server's view of the log, checks it against the local log, stores missing outcomes
   * and the server's latest receipt; returns the verified size.
   */
  private long resume(Tally t) throws IOException, InterruptedException {
    LogState server;
    try {
      server = withRetries(() -> client.log(identity.deviceId()), t, false);
    } catch (ServerProblemException e) {
      throw refusals.stopped(e);
    }
    if ("QUARANTINED".equals(server.status())) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.QUARANTINED,
          "the server has quarantined device "
              + identity.deviceId()
              + "; nothing was sent, all local data is kept; ask an operator");
    }
    long v = server.verifiedSize();
    long local = store.logState().size();
    if (v > local) {
      presentCheckpoint(local, t);
      throw new SyncStoppedException(
          SyncStoppedException.Reason.SERVER_AHEAD,
          "the server verified "
              + v
              + " records of device "
              + identity.deviceId()
              + " but this device holds only "
              + local
              + ": the data directory was restored from an older backup or cloned; nothing"
              + " was sent, all local data is kept");
    }
    rangeAt(v);
    String localRoot = HEX.formatHex(range.root());
    if (v > 0 && !localRoot.equalsIgnoreCase(String.valueOf(server.rootHex()))) {
      presentCheckpoint(v, t);
      throw new SyncStoppedException(
          SyncStoppedException.Reason.FORK,
          "FORK: the server verified size "
              + v
              + " of device "
              + identity.deviceId()
              + " with root "
              + server.rootHex()
              + ", this device's log has root "
              + localRoot
              + " there; the device was cloned, rolled back or tampered with. Nothing was sent,"
              + " all local data is kept");
    }
    fetchMissingOutcomes(v, t);
    if (server.receipt() != null && v > 0) {
      long have = store.latestReceipt().map(StoredCheckpoint::size).orElse(-1L);
      if (have < v) {
        checkReceipt(server.receipt(), v, range.root());
        store.saveReceipt(v, server.receipt(), clock.millis());
      }
    }
    return v;
  }

  /**
   * Shows the server, as the witness of this log, the device's signed checkpoint for {@code size}
   * (at most the verified size) in an empty batch. If the logs forked the server sees two roots for
   * one size and quarantines the device, so an operator learns of the clone or rollback; if the
   * local log is a consistent prefix (a restored backup) the server accepts it and stores nothing.
   * Either way nothing local changes.
   */
  private void presentCheckpoint(long size, Tally t) throws IOException, InterruptedException {
    rangeAt(size);
    Checkpoint head = new Checkpoint(identity.origin(), size, range.root());
    String note = Checkpoints.sign(head, identity.signer());
    try {
      withRetries(
          () ->
              client.postBatch(
                  identity.deviceId(),
                  new BatchRequest(size, List.of(), note, metadata(size, head))),
          t,
          true);
      LOG.warn("the server accepted this device's checkpoint for size {} as consistent", size);
    } catch (ServerProblemException e) {
      throw refusals.stopped(e);
    }
  }

  /** Sets {@link #range} to the compact range of {@code [0, size)}. */
  private void rangeAt(long size) throws IOException {
    if (range == null || range.end() > size) {
      range = CompactRange.empty();
    }
    long at = range.end();
    while (at < size) {
      int page = (int) Math.min(ACKS_PAGE, size - at);
      List<StoredRecord> rows = store.records(at, page);
      if (rows.isEmpty()) {
        throw new IOException("store: no record at index " + at + ", want records up to " + size);
      }
      for (StoredRecord r : rows) {
        if (r.index() != at) {
          throw new IOException("store: got record index " + r.index() + ", want " + at);
        }
        range.append(r.leafHash());
        at++;
      }
    }
  }

  private void fetchMissingOutcomes(long verified, Tally t)
      throws IOException, InterruptedException {
    long from = firstWithoutOutcome(verified);
    while (from < verified) {
      long to = Math.min(verified, from + ACKS_PAGE);
      long start = from;
      AcksResponse acks;
      try {
        acks = withRetries(() -> client.acks(identity.deviceId(), start, to), t, false);
      } catch (ServerProblemException e) {
        throw refusals.stopped(e);
      }
      List<RecordOutcome> got = acks.outcomes();
      if (got.size() != to - from) {
        throw new SyncStoppedException(
            SyncStoppedException.Reason.PROTOCOL,
            "acks ["
                + from
                + ", "
                + to
                + "): got "
                + got.size()
                + " outcomes, want "
                + (to - from));
      }
      List<StoredRecord> local = store.records(from, (int) (to - from));
      store.applyOutcomes(updates(got, local, from));
      LOG.info(
          "stored {} outcomes of records [{}, {}) fetched from the server", got.size(), from, to);
      from = to;
    }
    outcomesBelow = Math.max(outcomesBelow, verified);
  }

  private long firstWithoutOutcome(long limit) throws IOException {
    long at = outcomesBelow;
    while (at < limit) {
      List<StoredRecord> rows = store.records(at, (int) Math.min(ACKS_PAGE, limit - at));
      if (rows.isEmpty()) {
        return limit;
      }
      for (StoredRecord r : rows) {
        if (r.outcome() == null) {
          return r.index();
        }
        at = r.index() + 1;
      }
    }
    return limit;
  }

  /**
   * Checks the answer to the batch of {@code sent} (the records {@code [oldSize, newSize)} as read
   * for sending) and stores its outcomes and receipt.
   */
  private void accept(
      BatchResponse response,
      List<StoredRecord> sent,
      long oldSize,
      long newSize,
      CompactRange next,
      String note)
      throws IOException {
    if (response.verifiedSize() < newSize) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.PROTOCOL,
          "batch ["
              + oldSize
              + ", "
              + newSize
              + "): server says verified size "
              + response.verifiedSize()
              + ", want >= "
              + newSize);
    }
    List<RecordOutcome> outcomes = response.outcomes();
    if (outcomes.size() != newSize - oldSize) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.PROTOCOL,
          "batch ["
              + oldSize
              + ", "
              + newSize
              + "): got "
              + outcomes.size()
              + " outcomes, want "
              + (newSize - oldSize));
    }
    if (response.receipt() == null) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.PROTOCOL,
          "batch [" + oldSize + ", " + newSize + "): got no receipt, want a cosigned checkpoint");
    }
    checkReceipt(response.receipt(), newSize, next.root());
    store.acceptBatch(
        updates(outcomes, sent, oldSize), newSize, response.receipt(), clock.millis());
    LOG.debug("batch [{}, {}) accepted; checkpoint {}", oldSize, newSize, note.length());
  }

  private List<OutcomeUpdate> updates(
      List<RecordOutcome> outcomes, List<StoredRecord> local, long from)
      throws SyncStoppedException {
    long now = clock.millis();
    List<OutcomeUpdate> out = new ArrayList<>(outcomes.size());
    for (int i = 0; i < outcomes.size(); i++) {
      RecordOutcome o = outcomes.get(i);
      StoredRecord r = local.get(i);
      if (o.index() != from + i
          || r.index() != from + i
          || (o.idempotencyKey() != null && !o.idempotencyKey().equals(r.idempotencyKey()))) {
        throw new SyncStoppedException(
            SyncStoppedException.Reason.PROTOCOL,
            "outcome "
                + i
                + " from index "
                + from
                + ": got index "
                + o.index()
                + " key "
                + o.idempotencyKey()
                + ", want index "
                + (from + i)
                + " key "
                + r.idempotencyKey());
      }
      out.add(
          new OutcomeUpdate(
              o.index(), o.outcome().name(), o.seq(), o.messageId(), o.reason(), now));
    }
    return out;
  }

  /** The receipt must carry the server's signature over this device's checkpoint. */
  private void checkReceipt(String receipt, long size, byte[] root) throws SyncStoppedException {
    try {
      Checkpoint cp = receipts.verify(receipt, identity.origin(), deviceVerifier);
      if (cp.size() != size || !Arrays.equals(cp.root(), root)) {
        throw new SyncStoppedException(
            SyncStoppedException.Reason.PROTOCOL,
            "receipt: got size "
                + cp.size()
                + " root "
                + HEX.formatHex(cp.root())
                + ", want size "
                + size
                + " root "
                + HEX.formatHex(root));
      }
    } catch (NoteVerificationException e) {
      throw new SyncStoppedException(
          SyncStoppedException.Reason.PROTOCOL,
          "receipt for size " + size + " does not verify: " + e.getMessage(),
          e);
    }
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code call}, retrying transient failures. Every failure is the last sync attempt; a
   * success only for an {@code upload} (a batch), so a read that works does not hide a batch the
   * server keeps refusing.
   */
  private <T> T withRetries(Call<T> call, Tally t, boolean upload)
      throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      IOException failure;
      java.time.Duration retryAfter = null;
      try {
        T answer = call.run();
        if (upload) {
          state.ended(SyncAttempt.OK);
        }
        return answer;
      } catch (ServerProblemException e) {
        state.ended(SyncState.outcomeOf(e));
        if (!e.transientFailure() && e.errorCode().orElse(null) != ErrorCode.VERSION_CONFLICT) {
          throw e;
        }
        failure = e;
        retryAfter = e.retryAfter().orElse(null);
      } catch (SyncStoppedException e) {
        throw e;
      } catch (IOException e) {
        state.ended(SyncState.outcomeOf(e));
        failure = e;
      }
      if (attempt >= settings.maxAttempts()) {
        throw new SyncStoppedException(
            SyncStoppedException.Reason.UNREACHABLE,
            "gave up after "
                + attempt
                + " attempts: "
                + failure.getMessage()
                + "; everything is kept locally, sync again later",
            failure);
      }
      t.retries++;
      java.time.Duration wait = backoff.delay(attempt, retryAfter);
      LOG.info("{}; retry {} in {} ms", failure.getMessage(), attempt, wait.toMillis());
      state.retryIn(wait);
      sleeper.sleep(wait);
      state.retrying();
    }
  }

  private static final class Tally {
    int batches;
    long recordsSent;
    long retries;
    int resumes;
  }
}
