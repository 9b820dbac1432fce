package dev.danmakuledger.server.ingest;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.EventType;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.events.Severity;
import dev.danmakuledger.server.ingest.BatchAssembly.Plan;
import dev.danmakuledger.server.ingest.CheckpointWitness.Extension;
import dev.danmakuledger.server.ingest.RecordTriage.Triage;
import dev.danmakuledger.server.ingest.RoomAdmission.Slot;
import dev.danmakuledger.server.ingest.StageTimes.Stage;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.redis.RoomSequencer;
import dev.danmakuledger.server.storage.BatchCommit;
import dev.danmakuledger.server.storage.CommittedBatch;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceSyncStates;
import dev.danmakuledger.server.storage.EdgeCounters;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.LogSlot;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.SlotTakenException;
import dev.danmakuledger.server.storage.StaleDeviceException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
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
 *   <li>{@link RoomAdmission}: one atomic Redis admit per room (dedupe proposal and numbers);
 *   <li>{@link BatchAssembly} and commit: SQL decides duplicates; the batch commits in one
 *       transaction optimistically locked on the device row; a UNIQUE collision with a key or
 *       number taken meanwhile is resolved (duplicate of the stored message, or a fresh number
 *       after the counter is re-seeded) and the batch commits again in the same request;
 *   <li>broadcast of the committed CONFIRMED messages and the admin event.
 * </ol>
 *
 * Thread-safe; nothing of a refused batch is stored.
 */
public final class BatchIngest {
  /** Attempts of a batch whose device row changed concurrently before answering 409. */
  static final int MAX_ATTEMPTS = 5;

  /**
   * Commit rounds of one attempt. Every round resolves the collisions it saw, so only other writers
   * racing for the same numbers or keys make another round necessary.
   */
  static final int MAX_COMMIT_ROUNDS = 16;

  private static final HexFormat HEX = HexFormat.of();

  private final LedgerStore store;
  private final CheckpointWitness witness;
  private final RecordTriage triage;
  private final RoomAdmission admission;
  private final RoomHub rooms;
  private final AdminHub admin;
  private final Clock clock;
  private final StageTimes stages = new StageTimes();
  private final OutcomeTally tally = new OutcomeTally();
  private volatile StageObserver observer = StageObserver.NONE;
  private volatile QueueReports queues;
  private volatile BiConsumer<String, List<LogSlot>> committedSlots;

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
      Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.rooms = Objects.requireNonNull(rooms, "rooms");
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
            Objects.requireNonNull(messageIds, "messageIds"));
  }

  /** Reports every stage of every batch to {@code observer} (metrics and tracing). */
  public BatchIngest observedBy(StageObserver observer) {
    this.observer = Objects.requireNonNull(observer, "observer");
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
      if (stage != PipelineStage.COMMIT) { // commit() splits its time into assemble and commit
        stages.add(StageTimes.Stage.valueOf(stage.name()), System.nanoTime() - start);
      }
    }
  }

  /**
   * Verifies and stores one batch.
   *
   * @param deviceId the device named in the URL
   * @param oldSize the size the device believes the server has verified
   * @param canonicals the records' bytes as sent, indices {@code oldSize..}; the HTTP boundary has
   *     checked their count and indices
   * @param checkpointNote the signed checkpoint for {@code oldSize + canonicals.size()}
   * @param metadata the edge counters, or null
   * @throws LedgerException for every refusal, with its error code
   */
  public IngestResult ingest(
      String deviceId,
      long oldSize,
      List<byte[]> canonicals,
      String checkpointNote,
      BatchMetadata metadata) {
    for (int attempt = 1; ; attempt++) {
      try {
        return attempt(deviceId, oldSize, canonicals, checkpointNote, metadata, attempt == 1);
      } catch (StaleDeviceException e) {
        if (attempt >= MAX_ATTEMPTS) {
          throw new LedgerException(
              ErrorCode.VERSION_CONFLICT,
              "device log "
                  + deviceId
                  + " changed concurrently "
                  + attempt
                  + " times; fetch /v1/devices/"
                  + deviceId
                  + "/log and resend from its verified size");
        }
      }
    }
  }

  /** Where the time of accepted batches goes, per pipeline stage. */
  public StageTimes stages() {
    return stages;
  }

  /** The outcomes of the batches this instance stored. */
  public OutcomeTally outcomes() {
    return tally;
  }

  private IngestResult attempt(
      String deviceId,
      long oldSize,
      List<byte[]> canonicals,
      String note,
      BatchMetadata metadata,
      boolean first)
      throws StaleDeviceException {
    long opened = System.nanoTime();
    DeviceRow device = witness.device(deviceId);
    long newSize = oldSize + canonicals.size();
    Checkpoint cp = witness.open(device, note, newSize);
    long now = clock.millis();
    QueueReports q = queues;
    // Authenticated from here on: the queue report is kept even if the batch is refused below,
    // stored in the batch's transaction when it commits, else on its own.
    DeviceSyncStates.Report queue =
        first && q != null ? q.of(deviceId, metadata, oldSize, now) : null;
    boolean reported = queue == null;
    try {
      if (oldSize > device.verifiedSize()) {
        store.markSeen(deviceId, newSize, now);
        throw witness.sizeMismatch(device);
      }
      String receipt = witness.cosign(note);
      if (oldSize < device.verifiedSize()) {
        List<RecordOutcome> stored = witness.resend(device, oldSize, canonicals, cp, now);
        reported = storeAlone(q, queue);
        return new IngestResult(response(device, stored, receipt), true);
      }
      if (canonicals.isEmpty()) {
        witness.checkSameRoot(device, cp);
        reported = storeAlone(q, queue);
        return new IngestResult(response(device, List.of(), receipt), false);
      }
      stages.add(Stage.OPEN, System.nanoTime() - opened);
      Extension ext =
          stage(
              PipelineStage.VERIFY, () -> witness.extend(device, oldSize, canonicals, cp, receipt));
      Triage t = stage(PipelineStage.TRIAGE, () -> triage.triage(deviceId, oldSize, canonicals));
      Map<String, List<Slot>> slots = stage(PipelineStage.ADMIT, () -> admission.admit(t.byRoom()));
      DeviceRow updated = updated(device, newSize, ext, note, metadata, now);
      Committed done =
          stage(PipelineStage.COMMIT, () -> commit(device, updated, t, slots, ext, queue));
      reported = true;
      if (q != null) {
        q.published(done.batch().queueAlert());
      }
      Plan plan = done.plan();
      stage(
          PipelineStage.PUBLISH,
          () -> {
            publish(done.batch(), updated, canonicals.size(), now);
            handOver(plan, deviceId, oldSize, ext.leafHashes());
            return null;
          });
      stages.countBatch();
      List<RecordOutcome> outcomes = new ArrayList<>(plan.rows().size());
      for (DeviceRecordRow r : plan.rows()) {
        outcomes.add(r.wire());
      }
      tally.count(outcomes);
      return new IngestResult(response(updated, outcomes, receipt), false);
    } catch (StaleDeviceException | RuntimeException e) {
      if (!reported) {
        try {
          q.store(queue);
        } catch (RuntimeException also) {
          e.addSuppressed(also);
        }
      }
      throw e;
    }
  }

  /** Stores {@code queue} on its own (a batch that writes nothing); true when that is done. */
  private static boolean storeAlone(QueueReports q, DeviceSyncStates.Report queue) {
    if (queue != null) {
      q.store(queue);
    }
    return true;
  }

  /**
   * Assembles and commits the batch, resolving collisions until it commits: keys Redis remembered
   * are first looked up in SQL (the only pre-read, and only for those keys); keys Redis called new
   * are trusted to the UNIQUE constraints, and a collision is read back only then.
   */
  /** A batch's plan and what its transaction gave out. */
  private record Committed(Plan plan, CommittedBatch batch) {}

  private Committed commit(
      DeviceRow device,
      DeviceRow updated,
      Triage t,
      Map<String, List<Slot>> slots,
      Extension ext,
      DeviceSyncStates.Report queue)
      throws StaleDeviceException {
    long t0 = System.nanoTime();
    Map<String, MessageRow> inSql = new HashMap<>(store.messagesByKeys(remembered(slots)));
    Map<String, Set<Long>> taken = new HashMap<>();
    for (int round = 1; ; round++) {
      Plan plan = BatchAssembly.assemble(device.id(), t.rejected(), slots, inSql, taken);
      long t1 = System.nanoTime();
      stages.add(Stage.ASSEMBLE, t1 - t0);
      boolean resolved;
      if (!plan.clashes().isEmpty()) {
        plan.clashes().forEach(admission::renumber);
        resolved = true;
      } else {
        try {
          CommittedBatch done =
              store.commit(
                  new BatchCommit(
                      device.version(),
                      device.verifiedSize(),
                      updated,
                      plan.rows(),
                      ext.nodes(),
                      plan.messages(),
                      plan.counters(),
                      queue));
          long statements = done.deviceLogNanos() + done.messagesNanos();
          stages.add(Stage.DEVICE_LOG, done.deviceLogNanos());
          stages.add(Stage.MESSAGES, done.messagesNanos());
          stages.add(Stage.COMMIT, Math.max(0, System.nanoTime() - t1 - statements));
          return new Committed(plan, done);
        } catch (SlotTakenException e) {
          resolved = resolve(plan, inSql, taken);
        }
      }
      t0 = System.nanoTime();
      stages.add(Stage.COMMIT, t0 - t1);
      if (!resolved || round >= MAX_COMMIT_ROUNDS) {
        throw new StaleDeviceException(
            device.id(),
            "batch of " + device.id() + " still collides after " + round + " commit rounds",
            null);
      }
    }
  }

  private static List<String> remembered(Map<String, List<Slot>> slots) {
    List<String> keys = new ArrayList<>();
    for (List<Slot> room : slots.values()) {
      for (Slot s : room) {
        if (!s.redisNew) {
          keys.add(s.key());
        }
      }
    }
    return keys;
  }

  /**
   * Reads back what a failed commit collided with: keys now stored (they become duplicates) and
   * numbers now taken (their records get fresh numbers, a tombstone is dropped).
   *
   * @return false when SQL shows no collision (the device row or something else raced: retry)
   */
  private boolean resolve(Plan plan, Map<String, MessageRow> inSql, Map<String, Set<Long>> taken) {
    boolean changed = false;
    List<String> keys = new ArrayList<>(plan.stored().size());
    for (Slot s : plan.stored()) {
      keys.add(s.key());
    }
    for (Map.Entry<String, MessageRow> e : store.messagesByKeys(keys).entrySet()) {
      changed |= inSql.put(e.getKey(), e.getValue()) == null;
    }
    Map<String, List<Long>> seqs = new LinkedHashMap<>();
    for (MessageRow m : plan.messages()) {
      seqs.computeIfAbsent(m.room(), r -> new ArrayList<>()).add(m.seq());
    }
    for (Map.Entry<String, List<Long>> e : seqs.entrySet()) {
      String room = e.getKey();
      Set<Long> now = store.messages().takenSeqs(room, e.getValue());
      changed |= taken.computeIfAbsent(room, r -> new HashSet<>()).addAll(now);
      List<Slot> renumber = new ArrayList<>();
      for (Slot s : plan.stored()) {
        if (s.candidate.record().room().equals(room)
            && now.contains(s.seq)
            && !inSql.containsKey(s.key())) {
          renumber.add(s);
        }
      }
      admission.renumber(room, renumber);
      changed |= !renumber.isEmpty();
    }
    return changed;
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
    return new DeviceRow(
        device.id(),
        device.publicKey(),
        device.verifierKey(),
        device.status(),
        device.statusReason(),
        newSize,
        Math.max(device.claimedSize(), newSize),
        ext.range().toBytes(),
        ext.range().root(),
        note,
        ext.receipt(),
        now,
        now,
        now,
        skew(metadata, now),
        device.signatureFailures(),
        edge,
        device.version() + 1,
        device.createdAt());
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
  private void handOver(Plan plan, String deviceId, long oldSize, List<byte[]> leafHashes) {
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

  /** Broadcasts what committed; nothing uncommitted is ever published. */
  private void publish(CommittedBatch committed, DeviceRow updated, int records, long now) {
    rooms.announce(committed.confirmed());
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("verifiedSize", updated.verifiedSize());
    data.put("records", records);
    data.put("rootHex", HEX.formatHex(updated.rootHash()));
    admin.publish(
        Events.of(
            EventType.DEVICE,
            Severity.INFO,
            updated.id(),
            null,
            "verified " + updated.id() + " up to " + updated.verifiedSize(),
            now,
            data));
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
