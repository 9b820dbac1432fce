package dev.danmakuledger.server.ingest;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.ingest.BatchAssembly.RoundWrites;
import dev.danmakuledger.server.ingest.CheckpointWitness.Extension;
import dev.danmakuledger.server.ingest.RecordTriage.Triage;
import dev.danmakuledger.server.ingest.StageTimes.Stage;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.redis.RoomSequencer;
import dev.danmakuledger.server.storage.Counter;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.EdgeCounters;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.LogSlot;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.StaleDeviceException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The batch pipeline of docs/architecture.md §4–§5, as named steps:
 *
 * <ol>
 *   <li>{@link CheckpointWitness}: enrolled device, signed checkpoint small enough to store, {@code
 *       oldSize} at the verified size (or a resend answered from stored outcomes, or a fork), leaf
 *       hashes giving the checkpoint root;
 *   <li>{@link RecordTriage}: every record either a moderated candidate or REJECTED in its place,
 *       decided before anything is admitted;
 *   <li>{@link TickSequencer}: the ready batch waits for the next tick, which admits every ready
 *       batch in one Redis round trip ({@link RoomAdmission}), assembles each ({@link
 *       BatchAssembly}: SQL decides duplicates), commits them in one transaction optimistically
 *       locked on each device row, resolves collisions of a batch alone ({@link CollisionRounds})
 *       and broadcasts the committed CONFIRMED messages;
 *   <li>the admin event and the hand-over of the committed slots to the room-log integrator.
 * </ol>
 *
 * The first three steps run on the request's thread, in parallel with other requests; the tick runs
 * on the sequencer's. A device may have several batches in flight: {@link InFlightBatches} holds at
 * most a window of them and starts a batch that continues one still held once that one was admitted
 * into a tick, from the row that tick leaves (docs/architecture.md §5, "Batches in flight").
 * Thread-safe; nothing of a refused batch is stored. Close it to stop the sequencer.
 */
public final class BatchIngest implements AutoCloseable {
  /** Attempts of a batch whose device row changed concurrently before answering 409. */
  static final int MAX_ATTEMPTS = 5;

  private static final HexFormat HEX = HexFormat.of();

  private final LedgerStore store;
  private final CheckpointWitness witness;
  private final RecordTriage triage;
  private final TickSequencer ticks;
  private final InFlightBatches inFlight;
  private final RecentDevices recent = new RecentDevices();
  private final AdminHub admin;
  private final Clock clock;
  private final StageTimes stages = new StageTimes();
  private final OutcomeTally tally = new OutcomeTally();
  private volatile StageObserver observer = StageObserver.NONE;
  private volatile QueueReports queues;
  private volatile BiConsumer<String, List<LogSlot>> committedSlots;
  private final RoomAdmission admission;

  public BatchIngest(
      LedgerStore store,
      RoomSequencer sequencer,
      MessageIds messageIds,
      NoteSigner serverSigner,
      CosignatureSigner cosigner,
      List<String> bannedWords,
      Pattern reviewRule,
      RoomHub rooms,
      AdminHub admin,
      int batchWindow,
      Clock clock) {
    this.inFlight =
        new InFlightBatches(
            batchWindow, InFlightBatches.PREDECESSOR_WAIT, InFlightBatches.ARRIVAL_WAIT);
    this.store = Objects.requireNonNull(store, "store");
    this.admin = Objects.requireNonNull(admin, "admin");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.witness =
        new CheckpointWitness(
            store,
            Objects.requireNonNull(serverSigner, "serverSigner"),
            Objects.requireNonNull(cosigner, "cosigner"),
            admin,
            clock);
    this.triage = new RecordTriage(new Moderation(bannedWords, reviewRule));
    this.admission =
        new RoomAdmission(
            Objects.requireNonNull(sequencer, "sequencer"),
            Objects.requireNonNull(messageIds, "messageIds"),
            store);
    this.ticks =
        TickSequencer.start(store, admission, Objects.requireNonNull(rooms, "rooms"), stages);
  }

  /** Stops the tick sequencer; batches still waiting for a tick are refused. */
  @Override
  public void close() {
    ticks.close();
  }

  /** Reports every stage of every batch to {@code observer} (metrics and tracing). */
  public BatchIngest observedBy(StageObserver observer) {
    this.observer = Objects.requireNonNull(observer, "observer");
    ticks.observedBy(observer);
    return this;
  }

  /**
   * Stores the queue state devices report and raises STUCK alerts through {@code queues}; without
   * it reported queue state is not kept.
   */
  public BatchIngest reportingQueuesTo(QueueReports queues) {
    this.queues = Objects.requireNonNull(queues, "queues");
    return this;
  }

  /**
   * Hands the room slots of every committed batch, by room, to {@code sink} (the room-log
   * integrator, which then extends the logs without reading them back from SQL).
   */
  public BatchIngest handingCommittedSlotsTo(BiConsumer<String, List<LogSlot>> sink) {
    this.committedSlots = Objects.requireNonNull(sink, "sink");
    return this;
  }

  /**
   * Tells {@code sink} the rooms in which numbers are handed out, before Redis hands them out (the
   * gap sealer then looks only at those rooms, docs/architecture.md §5).
   */
  public BatchIngest notingNumberedRoomsTo(Consumer<Set<String>> sink) {
    admission.notingRoomsTo(sink);
    return this;
  }

  /** One pipeline step that may lose the race for the device row. */
  private interface Step<T> {
    T run() throws StaleDeviceException;
  }

  private <T> T stage(PipelineStage stage, Step<T> step) throws StaleDeviceException {
    StageObserver.Scope scope = observer.start(stage);
    long start = System.nanoTime();
    try {
      return step.run();
    } catch (RuntimeException | StaleDeviceException e) {
      scope.failed(e);
      throw e;
    } finally {
      scope.end();
      stages.add(StageTimes.Stage.valueOf(stage.name()), System.nanoTime() - start);
    }
  }

  /**
   * Verifies and stores one batch, waiting for it: {@link #submit} on this thread and the
   * committer's.
   *
   * @throws LedgerException for every refusal, with its error code
   */
  public IngestResult ingest(
      String deviceId,
      long oldSize,
      List<byte[]> canonicals,
      String checkpointNote,
      BatchMetadata metadata) {
    try {
      return submit(
              deviceId,
              oldSize,
              canonicals,
              checkpointNote,
              metadata,
              ReceiptSignatures.COSIGNATURE_AND_NOTE,
              Runnable::run)
          .join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /**
   * Verifies one batch on this thread and hands it to the next tick; nothing waits for the tick
   * (docs/architecture.md §5, "Ticks"). What follows the commit, and a batch chained behind one of
   * the same device, runs on {@code executor} (the listener's request threads), never on the
   * committer's.
   *
   * @param deviceId the device named in the URL
   * @param oldSize the size the device believes the server has verified
   * @param canonicals the records' bytes as sent, indices {@code oldSize..}; the HTTP boundary has
   *     checked their count and indices
   * @param checkpointNote the signed checkpoint for {@code oldSize + canonicals.size()}
   * @param metadata the edge counters, or null
   * @param receipts the server signatures the batch's receipt carries
   * @param executor where what follows the commit runs
   * @return the batch's result; it fails with {@link LedgerException} for every refusal, with its
   *     error code ({@code size-mismatch} also when the batch was chained behind one of the same
   *     device that failed), or with what the store failed with
   */
  public CompletableFuture<IngestResult> submit(
      String deviceId,
      long oldSize,
      List<byte[]> canonicals,
      String checkpointNote,
      BatchMetadata metadata,
      ReceiptSignatures receipts,
      Executor executor) {
    Objects.requireNonNull(receipts, "receipts");
    Objects.requireNonNull(executor, "executor");
    return inFlight
        .run(
            deviceId,
            oldSize,
            oldSize + canonicals.size(),
            start ->
                attempts(
                    new Submitted(
                        deviceId, oldSize, canonicals, checkpointNote, metadata, receipts),
                    start,
                    1,
                    executor),
            executor)
        .exceptionallyCompose(
            e ->
                CompletableFuture.failedFuture(
                    InFlightBatches.cause(e) instanceof InFlightBatches.PredecessorFailedException
                        ? witness.sizeMismatch(witness.device(deviceId))
                        : InFlightBatches.cause(e)));
  }

  /** A batch as its request submitted it, handed unchanged from one attempt to the next. */
  private record Submitted(
      String deviceId,
      long oldSize,
      List<byte[]> canonicals,
      String note,
      BatchMetadata metadata,
      ReceiptSignatures receipts) {}

  /**
   * The receipt signatures of a batch whose request named {@code cosigner} in {@link
   * ReceiptSignatures#HEADER} (null: none), for {@link #submit}.
   */
  public ReceiptSignatures receiptSignaturesFor(String cosigner) {
    return witness.signaturesFor(cosigner);
  }

  /** Most batches of one device this instance holds at once (the announced batch window). */
  public int batchWindow() {
    return inFlight.window();
  }

  /** Batches of every device this instance holds now, chained ones included. */
  public int batchesHeld() {
    return inFlight.held();
  }

  /**
   * The batch's attempts from {@code attempt} on: one that finds its device row moved on is tried
   * again, from SQL, at most {@link #MAX_ATTEMPTS} times in all.
   */
  private CompletableFuture<InFlightBatches.Settled> attempts(
      Submitted batch, InFlightBatches.Start start, int attempt, Executor executor) {
    String deviceId = batch.deviceId();
    CompletableFuture<InFlightBatches.Settled> tried;
    try {
      tried = attempt(batch, start, attempt, executor);
    } catch (StaleDeviceException | RuntimeException e) {
      tried = CompletableFuture.failedFuture(e);
    }
    return tried.exceptionallyCompose(
        e -> {
          if (!(InFlightBatches.cause(e) instanceof StaleDeviceException)) {
            return CompletableFuture.failedFuture(InFlightBatches.cause(e));
          }
          recent.stale(deviceId);
          if (attempt >= MAX_ATTEMPTS) {
            return CompletableFuture.failedFuture(
                new LedgerException(
                    ErrorCode.VERSION_CONFLICT,
                    "device log "
                        + deviceId
                        + " changed concurrently "
                        + attempt
                        + " times; fetch /v1/devices/"
                        + deviceId
                        + "/log and resend from its verified size"));
          }
          return attempts(batch, start, attempt + 1, executor);
        });
  }

  /**
   * Batches admitted into the next tick while the last one commits (docs/architecture.md §5,
   * "Ticks"): the seam the tick tests wait on.
   */
  int formingTick() {
    return ticks.forming();
  }

  /** Where the time of accepted batches goes, per pipeline stage. */
  public StageTimes stages() {
    return stages;
  }

  /** The outcomes of the batches this instance stored. */
  public OutcomeTally outcomes() {
    return tally;
  }

  /**
   * One attempt: verified and triaged on this thread, then handed to the next tick; what follows
   * the commit runs on {@code executor}. The first attempt starts from the row {@code start}'s
   * predecessor leaves, else from the one the device's last batch committed here left ({@link
   * RecentDevices}), else from SQL; a later one always from SQL.
   *
   * @param number the attempt's number, from 1
   */
  private CompletableFuture<InFlightBatches.Settled> attempt(
      Submitted batch, InFlightBatches.Start start, int number, Executor executor)
      throws StaleDeviceException {
    String deviceId = batch.deviceId();
    long oldSize = batch.oldSize();
    List<byte[]> canonicals = batch.canonicals();
    String note = batch.note();
    BatchMetadata metadata = batch.metadata();
    long opened = System.nanoTime();
    boolean first = number == 1;
    InFlightBatches.Pending after = first ? start.after() : null;
    DeviceRow known =
        after != null
            ? after.row()
            : first ? recent.startingAt(deviceId, oldSize, canonicals) : null;
    DeviceRow device = known != null ? known : witness.device(deviceId);
    long newSize = oldSize + canonicals.size();
    Checkpoint cp = witness.open(device, note, newSize);
    long now = clock.millis();
    ReportProvenance provenance = ReportProvenance.of(device, oldSize, cp, metadata);
    if (provenance == ReportProvenance.UNVERIFIED) {
      store.addCounters(Map.of(Counter.UNVERIFIED_REPORTS.key(), 1L));
    }
    BatchMetadata report = provenance.trusted(metadata);
    QueueReports q = queues;
    QueueReport queue =
        new QueueReport(
            q, first && q != null ? q.of(deviceId, report, provenance, oldSize, now) : null);
    try {
      if (oldSize > device.verifiedSize()) {
        store.markSeen(deviceId, newSize, now);
        throw witness.sizeMismatch(device);
      }
      String receipt = witness.cosign(note, batch.receipts());
      if (oldSize < device.verifiedSize()) {
        List<RecordOutcome> stored = witness.resend(device, oldSize, canonicals, cp, now);
        queue.storeAlone();
        return CompletableFuture.completedFuture(settled(device, stored, receipt, true));
      }
      if (canonicals.isEmpty()) {
        witness.checkSameRoot(device, cp);
        queue.storeAlone();
        return CompletableFuture.completedFuture(settled(device, List.of(), receipt, false));
      }
      stages.add(Stage.OPEN, System.nanoTime() - opened);
      Extension ext =
          stage(
              PipelineStage.VERIFY, () -> witness.extend(device, oldSize, canonicals, cp, receipt));
      Triage t = stage(PipelineStage.TRIAGE, () -> triage.triage(deviceId, oldSize, canonicals));
      DeviceRow updated = updated(device, newSize, ext, note, report, now);
      return ticks
          .submit(
              new ReadyBatch(
                  device, updated, t, ext, queue.pending(), after == null ? null : after.commit()),
              commit -> start.admitted().accept(new InFlightBatches.Pending(updated, commit)))
          .handleAsync(
              (done, failed) -> {
                if (failed != null) {
                  Throwable why = InFlightBatches.cause(failed);
                  try {
                    queue.storeAlone();
                  } catch (RuntimeException also) {
                    why.addSuppressed(also);
                  }
                  throw new CompletionException(why);
                }
                return committed(done, q, queue, updated, canonicals, oldSize, ext, receipt, now);
              },
              executor);
    } catch (StaleDeviceException | RuntimeException e) {
      try {
        queue.storeAlone();
      } catch (RuntimeException also) {
        e.addSuppressed(also);
      }
      throw e;
    }
  }

  /** What follows a batch's commit: the admin event, the hand-over, its outcomes. */
  private InFlightBatches.Settled committed(
      TickSequencer.Committed done,
      QueueReports q,
      QueueReport queue,
      DeviceRow updated,
      List<byte[]> canonicals,
      long oldSize,
      Extension ext,
      String receipt,
      long now) {
    queue.committedWithBatch();
    if (q != null) {
      q.published(done.queueAlert());
    }
    RoundWrites plan = done.plan();
    StageObserver.Scope scope = observer.start(PipelineStage.PUBLISH);
    long start = System.nanoTime();
    try {
      publish(updated, canonicals.size(), now);
      handOver(plan, updated.id(), oldSize, ext.leafHashes());
    } catch (RuntimeException e) {
      scope.failed(e);
      throw e;
    } finally {
      scope.end();
      stages.add(StageTimes.Stage.PUBLISH, System.nanoTime() - start);
    }
    stages.countBatch();
    List<RecordOutcome> outcomes = new ArrayList<>(plan.rows().size());
    for (DeviceRecordRow r : plan.rows()) {
      outcomes.add(r.wire());
    }
    tally.count(outcomes);
    recent.committed(updated);
    return settled(updated, outcomes, receipt, false);
  }

  private static DeviceRow updated(
      DeviceRow device,
      long newSize,
      Extension ext,
      String note,
      BatchMetadata metadata,
      long now) {
    EdgeCounters edge =
        metadata == null
            ? device.edge()
            : device
                .edge()
                .max(
                    new EdgeCounters(
                        metadata.bloomChecks(),
                        metadata.bloomMaybe(),
                        metadata.edgeDuplicates(),
                        metadata.bloomFalsePositives()));
    return device.verifiedUpTo(
        newSize,
        ext.range().toBytes(),
        ext.range().root(),
        note,
        ext.receipt(),
        now,
        skew(metadata, now),
        edge);
  }

  /**
   * The device's clock minus the server's at receipt, from the clock the agent sent; unknown (null)
   * when it sent none. Record HLC times are not a clock reading: a device back from days offline
   * sends old records, and one whose clock started at 0 sends HLC times near 1970.
   */
  static Long skew(BatchMetadata metadata, long now) {
    if (metadata == null || metadata.deviceClockMillis() == null) {
      return null;
    }
    return metadata.deviceClockMillis() - now;
  }

  /**
   * Hands the committed slots of {@code plan} over, by room, in seq order.
   *
   * @param leafHashes the leaf hash of each record of the batch of {@code deviceId}, the first at
   *     {@code oldSize}
   */
  private void handOver(RoundWrites plan, String deviceId, long oldSize, List<byte[]> leafHashes) {
    BiConsumer<String, List<LogSlot>> sink = committedSlots;
    if (sink == null || plan.messages().isEmpty()) {
      return;
    }
    Map<String, List<LogSlot>> byRoom = new TreeMap<>();
    for (MessageRow m : plan.messages()) {
      byte[] leaf = null;
      if (m.deviceIndex() != null) {
        long i = m.deviceIndex() - oldSize;
        if (!deviceId.equals(m.deviceId()) || i < 0 || i >= leafHashes.size()) {
          continue; // not a record of this batch: the integrator reads it from SQL
        }
        leaf = leafHashes.get((int) i);
      }
      byRoom
          .computeIfAbsent(m.room(), r -> new ArrayList<>())
          .add(
              new LogSlot(
                  m.seq(),
                  m.status(),
                  m.reason(),
                  m.messageId(),
                  m.deviceId(),
                  m.deviceIndex(),
                  m.idempotencyKey(),
                  leaf));
    }
    for (Map.Entry<String, List<LogSlot>> e : byRoom.entrySet()) {
      List<LogSlot> slots = e.getValue();
      slots.sort(Comparator.comparingLong(LogSlot::seq));
      sink.accept(e.getKey(), slots);
    }
  }

  /** Tells the admin stream what committed (the tick broadcast the room messages). */
  private void publish(DeviceRow updated, int records, long now) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("verifiedSize", updated.verifiedSize());
    data.put("records", records);
    data.put("rootHex", HEX.formatHex(updated.rootHash()));
    admin.publish(
        Events.of(
            AdminEvent.Type.DEVICE,
            Severity.INFO,
            updated.id(),
            null,
            "verified " + updated.id() + " up to " + updated.verifiedSize(),
            now,
            data));
  }

  private static InFlightBatches.Settled settled(
      DeviceRow device, List<RecordOutcome> outcomes, String receipt, boolean replayed) {
    return new InFlightBatches.Settled(
        new IngestResult(response(device, outcomes, receipt), replayed), device);
  }

  private static BatchResponse response(
      DeviceRow device, List<RecordOutcome> outcomes, String receipt) {
    return new BatchResponse(
        device.id(),
        device.verifiedSize(),
        device.verifiedSize() == 0 ? null : HEX.formatHex(device.rootHash()),
        outcomes,
        receipt);
  }
}
