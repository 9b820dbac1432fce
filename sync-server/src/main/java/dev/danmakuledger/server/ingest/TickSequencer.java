package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.ingest.BatchAssembly.RoundWrites;
import dev.danmakuledger.server.ingest.RecordTriage.Candidate;
import dev.danmakuledger.server.ingest.RoomAdmission.Slot;
import dev.danmakuledger.server.ingest.StageTimes.Stage;
import dev.danmakuledger.server.storage.AlertRow;
import dev.danmakuledger.server.storage.BatchCommit;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.StaleDeviceException;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The write path's unit of work, a tick (docs/architecture.md §5, "Ticks"): batches that finished
 * their request stages wait here, and the sequencer thread takes every batch that is ready — all
 * devices, all rooms — admits their candidates in one Redis round trip and assembles each batch's
 * plan against one SQL lookup of the keys Redis remembered; the committer thread then commits them
 * in one transaction, broadcasts what committed and releases every waiting request. The two threads
 * overlap: the next tick is admitted and assembled while the last one commits, and is handed over
 * when that commit is done. A tick closes before it would pass {@link #MAX_TICK_RECORDS}; it is
 * handed over once the committer is free and the tick is gathered: a lone batch on an idle server
 * is not delayed, under load a tick holds what arrived while the previous one committed (group
 * commit), and when small batches of many devices arrive faster than ticks commit it waits a little
 * for more of them ({@link TickGathering}), so that a tick's fixed cost is shared.
 *
 * <p>Failure isolation ({@link TickCommit}): a tick whose transaction fails is split in halves and
 * each half committed again, down to single batches, which commit through {@link CollisionRounds};
 * a batch whose plan overlaps an earlier batch of its tick (a key or number both hold) commits
 * alone after the tick. A device's later batch that starts from the row its predecessor's tick
 * leaves joins the tick being formed, be it the one that holds its predecessor or the next one
 * while that commits; it commits only after its predecessor did, and is refused if that one failed
 * (docs/architecture.md §5, "Batches in flight"). A device's other batches wait for a later tick.
 */
final class TickSequencer implements AutoCloseable {
  /**
   * A tick takes no batch that would bring it past this many records (a batch is never split: a
   * larger one is a tick of its own).
   */
  static final int MAX_TICK_RECORDS = 4096;

  private static final long IDLE_POLL_MILLIS = 100;

  /**
   * How often a gathered tick checks whether the committer is free, admitting what arrived
   * meanwhile; and how long the sequencer waits for a batch of a device whose last batch still
   * commits. Short: under load a tick should hold all that arrived while the previous one
   * committed.
   */
  private static final long TOP_UP_MILLIS = 1;

  /**
   * How long a tick that is not gathered yet ({@link TickGathering}) collects the batches that
   * arrive before it admits them together: one Redis round trip and one SQL lookup for the batches
   * of those milliseconds instead of one for every batch or two. Collecting stops as soon as the
   * tick is gathered, so it never delays a tick's hand-over.
   */
  private static final long ADMIT_MILLIS = 5;

  /**
   * What the tick did for one batch: its final plan and the STUCK alert its queue report raised.
   */
  record Committed(RoundWrites plan, Optional<AlertRow> queueAlert) {}

  /**
   * A batch handed to the sequencer: its reply, completed by the tick that commits it, and what to
   * tell once it was admitted into a tick.
   */
  record Waiting(
      ReadyBatch batch,
      CompletableFuture<Committed> reply,
      Consumer<CompletableFuture<Committed>> admitted,
      long submittedNanos) {}

  /**
   * A batch's plan, assembled against what SQL holds and, for keys SQL did not hold yet, what the
   * tick being committed meanwhile or the device's earlier batches of the same tick planned ({@code
   * planned}): the plan stands only if those rows are stored as planned.
   */
  record Assembled(
      Waiting waiting,
      Map<String, List<Slot>> slots,
      RoundWrites plan,
      List<PlannedRows.Planned> planned) {
    BatchCommit commit() {
      return waiting.batch().commit(plan);
    }
  }

  /**
   * A tick admitted and assembled, ready to commit: the batches that commit together, those that
   * commit alone after them, and what SQL held of the keys Redis remembered.
   */
  record ReadyTick(
      long number,
      List<Waiting> waiting,
      List<Assembled> together,
      List<Assembled> alone,
      Map<String, MessageRow> known) {}

  private final LinkedBlockingQueue<Waiting> queue = new LinkedBlockingQueue<>();

  /** Batches left over by the last tick, oldest first; touched by the sequencer thread only. */
  private final ArrayDeque<Waiting> carried = new ArrayDeque<>();

  private final LedgerStore store;
  private final RoomAdmission admission;
  private final TickCommit commits;
  private final StageTimes stages;
  private final Thread thread;
  private final Thread committer;

  /** Hands a tick from the sequencer to the committer once the committer is free. */
  private final SynchronousQueue<ReadyTick> handOver = new SynchronousQueue<>();

  /**
   * Devices of the tick the committer holds, with that tick's number: their next batches wait for a
   * later tick unless they start from the row it leaves.
   */
  private final Map<String, Long> committing = new ConcurrentHashMap<>();

  /** Ticks handed to the committer so far; touched by the sequencer thread only. */
  private long ticks;

  /** Whether a tick waits for more batches; touched by the sequencer thread only. */
  private final TickGathering gathering = new TickGathering();

  /** When the committer last finished a tick ({@link System#nanoTime}). */
  private volatile long committedAt = System.nanoTime() - TickGathering.ACTIVE_NANOS;

  /**
   * The messages the tick handed to the committer last plans to store, by key; touched by the
   * sequencer thread only.
   */
  private PlannedRows committingKeys = PlannedRows.NONE;

  /**
   * Batches admitted into the tick the sequencer is forming; written by the sequencer thread only.
   */
  private volatile int forming;

  private volatile StageObserver observer = StageObserver.NONE;
  private volatile boolean closed;

  private TickSequencer(
      LedgerStore store, RoomAdmission admission, RoomHub rooms, StageTimes stages) {
    this.store = store;
    this.admission = admission;
    this.commits =
        new TickCommit(store, new CollisionRounds(store, admission, stages), rooms, stages);
    this.stages = stages;
    this.thread = new Thread(this::run, "tick-sequencer");
    this.thread.setDaemon(true);
    this.committer = new Thread(this::commitLoop, "tick-committer");
    this.committer.setDaemon(true);
  }

  /** A sequencer with its thread started. */
  static TickSequencer start(
      LedgerStore store, RoomAdmission admission, RoomHub rooms, StageTimes stages) {
    TickSequencer t =
        new TickSequencer(
            Objects.requireNonNull(store, "store"),
            Objects.requireNonNull(admission, "admission"),
            Objects.requireNonNull(rooms, "rooms"),
            Objects.requireNonNull(stages, "stages"));
    t.committer.start();
    t.thread.start();
    return t;
  }

  void observedBy(StageObserver observer) {
    this.observer = Objects.requireNonNull(observer, "observer");
    commits.observedBy(observer);
  }

  /**
   * Hands {@code batch} to the next tick. The future completes on the committer thread once the
   * tick committed it, or fails with {@link StaleDeviceException} when its device row moved on or
   * its collisions did not resolve, or with what the admission or the commit failed with (Redis or
   * SQL unavailable); nothing waits for it here, so a caller that must not hold the committer
   * continues on an executor of its own.
   *
   * @param admitted told that future on the sequencer thread once the batch was admitted into a
   *     tick (never when its admission failed); it must return at once
   */
  CompletableFuture<Committed> submit(
      ReadyBatch batch, Consumer<CompletableFuture<Committed>> admitted) {
    Waiting w =
        new Waiting(
            batch,
            new CompletableFuture<>(),
            Objects.requireNonNull(admitted, "admitted"),
            System.nanoTime());
    queue.add(w);
    if (closed) {
      w.reply().completeExceptionally(stopped());
    }
    return w.reply();
  }

  /**
   * Batches admitted into the tick the sequencer is forming while the committer is busy: the seam
   * the tick tests wait on.
   */
  int forming() {
    return forming;
  }

  /** Stops the sequencer; batches still waiting are refused as storage unavailable. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(10));
      committer.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    refuseWaiting();
  }

  private static StorageUnavailableException stopped() {
    return new StorageUnavailableException("server stopping", null);
  }

  private void refuseWaiting() {
    List<Waiting> left = new ArrayList<>();
    queue.drainTo(left);
    for (Waiting w : left) {
      w.reply().completeExceptionally(stopped());
    }
  }

  private void run() {
    try {
      while (!closed) {
        FormingTick tick = new FormingTick();
        take(tick, true);
        if (tick.waiting.isEmpty()) {
          continue;
        }
        handOver(tick);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      for (Waiting w : carried) {
        w.reply().completeExceptionally(stopped());
      }
      carried.clear();
      refuseWaiting();
      forming = 0;
    }
  }

  /**
   * Hands {@code tick} to the committer as soon as it is free and the tick is gathered ({@link
   * TickGathering}); until then admits every batch that becomes ready into the same tick, so the
   * tick's transaction holds all that arrived while the previous one committed.
   */
  private void handOver(FormingTick tick) throws InterruptedException {
    ReadyTick ready = null;
    long number = ticks + 1;
    while (true) {
      if (!closed
          && !gathering.gathered(
              System.nanoTime(), tick.records, tick.last.size(), tick.oldest, committedAt)) {
        collect(tick);
        take(tick, false);
        continue;
      }
      if (ready == null || ready.waiting().size() != tick.waiting.size()) {
        // built again only when a top-up admitted more batches
        for (String device : tick.last.keySet()) {
          committing.put(device, number);
        }
        ready = tick.ready(number);
      }
      boolean taken;
      try {
        taken = handOver.offer(ready, TOP_UP_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        for (Waiting w : tick.waiting) {
          w.reply().completeExceptionally(stopped());
        }
        throw e;
      }
      if (taken) {
        ticks = number;
        committingKeys = plannedKeys(ready);
        forming = 0;
        return;
      }
      take(tick, false);
    }
  }

  /**
   * Collects the batches that arrive for {@link #ADMIT_MILLIS}, up to the tick's gathering
   * deadline, and stops as soon as they would complete the tick ({@link TickGathering}), so that
   * the tick's next admission takes them in one round trip.
   */
  private void collect(FormingTick tick) throws InterruptedException {
    long until =
        Math.min(
            TickGathering.deadline(tick.oldest),
            System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ADMIT_MILLIS));
    long records = tick.records;
    Set<String> devices = new HashSet<>(tick.last.keySet());
    for (Waiting w : carried) {
      records += w.batch().records();
      devices.add(w.batch().deviceId());
    }
    for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
      Waiting next = queue.poll(left, TimeUnit.NANOSECONDS);
      if (next == null) {
        return;
      }
      carried.add(next);
      records += next.batch().records();
      devices.add(next.batch().deviceId());
      gathering.submitted(next.batch().deviceId(), next.submittedNanos());
      if (gathering.gathered(
          System.nanoTime(), records, devices.size(), tick.oldest, committedAt)) {
        return;
      }
    }
  }

  /** The messages {@code tick} plans to store, by key. */
  private static PlannedRows plannedKeys(ReadyTick tick) {
    PlannedRows.Builder keys = new PlannedRows.Builder();
    for (List<Assembled> part : List.of(tick.together(), tick.alone())) {
      for (Assembled a : part) {
        keys.add(a.plan(), a.waiting().reply());
      }
    }
    return keys.build();
  }

  /**
   * The committer's loop: commits each tick handed over, then takes the next, until the sequencer
   * stopped. It is never interrupted: an interrupt during H2 file I/O closes the database file for
   * every user of it.
   */
  private void commitLoop() {
    while (true) {
      ReadyTick tick;
      try {
        tick = handOver.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (tick == null) {
        if (closed && !thread.isAlive()) {
          return;
        }
        continue;
      }
      stages.countTick(); // before any of its replies completes
      try {
        commits.commit(tick.together(), tick.alone(), tick.known());
      } catch (RuntimeException | Error e) {
        for (Waiting w : tick.waiting()) {
          w.reply().completeExceptionally(e);
        }
      } finally {
        for (Waiting w : tick.waiting()) {
          committing.remove(w.batch().deviceId(), tick.number());
        }
        committedAt = System.nanoTime();
      }
    }
  }

  /**
   * Adds to {@code tick} the batches that are ready: those left over first, then every batch
   * waiting, up to {@link #MAX_TICK_RECORDS}; then admits and assembles them. A device's batch
   * joins only if it starts from the row the device's last batch in a tick leaves: the tick's own
   * last batch of the device, else the one being committed, else none (any other batch of the
   * device stays for a later tick, so its log extends in order). With {@code wait}, waits a while
   * for a batch when none is ready.
   */
  private void take(FormingTick tick, boolean wait) throws InterruptedException {
    List<Waiting> ready = new ArrayList<>(carried);
    carried.clear();
    if (wait && ready.isEmpty()) {
      Waiting first = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
      if (first == null) {
        return;
      }
      ready.add(first);
    }
    queue.drainTo(ready);
    List<Waiting> taken = new ArrayList<>();
    long records = tick.records;
    Map<String, CompletableFuture<Committed>> last = new HashMap<>(tick.last);
    for (Waiting w : ready) {
      boolean empty = tick.waiting.isEmpty() && taken.isEmpty();
      boolean full = !empty && records + w.batch().records() > MAX_TICK_RECORDS;
      String device = w.batch().deviceId();
      CompletableFuture<?> predecessor = w.batch().predecessor();
      boolean follows =
          last.containsKey(device)
              ? predecessor != null && predecessor == last.get(device)
              : predecessor != null || !committing.containsKey(device);
      if (!follows || full) {
        carried.add(w);
        continue;
      }
      taken.add(w);
      last.put(device, w.reply());
      records += w.batch().records();
    }
    if (!taken.isEmpty()) {
      admitInto(tick, taken);
    } else if (wait && !carried.isEmpty()) {
      // only batches of devices still committing: wait for an arrival or a short while
      Waiting next = queue.poll(TOP_UP_MILLIS, TimeUnit.MILLISECONDS);
      if (next != null) {
        carried.add(next);
      }
    }
  }

  /**
   * Admits {@code batches} in one Redis round trip and assembles their plans into {@code tick}
   * against one SQL lookup of the keys Redis remembered; when that fails, every one of them gets
   * the failure as its answer and the tick is left as it was.
   */
  private void admitInto(FormingTick tick, List<Waiting> batches) {
    try {
      long t0 = System.nanoTime();
      List<Map<String, List<Candidate>>> candidates = new ArrayList<>(batches.size());
      for (Waiting w : batches) {
        candidates.add(w.batch().triage().byRoom());
      }
      StageObserver.Scope admit = observer.start(PipelineStage.ADMIT);
      List<Map<String, List<Slot>>> slots;
      try {
        slots = admission.admitTick(candidates);
      } catch (RuntimeException e) {
        admit.failed(e);
        throw e;
      } finally {
        admit.end();
      }
      long t1 = System.nanoTime();
      stages.add(Stage.ADMIT, t1 - t0);
      Map<String, MessageRow> known = store.messagesByKeys(remembered(slots));
      tick.known.putAll(known);
      for (int i = 0; i < batches.size(); i++) {
        Waiting w = batches.get(i);
        String device = w.batch().deviceId();
        List<PlannedRows.Planned> planned =
            new ArrayList<>(committingKeys.remembered(slots.get(i), tick.known));
        PlannedRows.Builder earlier = tick.plannedBy.get(device);
        if (earlier != null) {
          planned.addAll(earlier.build().remembered(slots.get(i), tick.known));
        }
        RoundWrites plan =
            BatchAssembly.assemble(
                w.batch().deviceId(),
                w.batch().triage().rejected(),
                slots.get(i),
                PlannedRows.with(tick.known, planned),
                Map.of());
        Assembled a = new Assembled(w, slots.get(i), plan, planned);
        if (!tick.aloneDevices.contains(device) && plan.clashes().isEmpty() && tick.claim(plan)) {
          tick.together.add(a);
          tick.plannedBy
              .computeIfAbsent(device, d -> new PlannedRows.Builder())
              .add(plan, w.reply());
        } else {
          tick.alone.add(a);
          tick.aloneDevices.add(device);
        }
        tick.waiting.add(w);
        tick.last.put(device, w.reply());
        tick.records += w.batch().records();
        tick.oldest = Math.min(tick.oldest, w.submittedNanos());
        gathering.submitted(device, w.submittedNanos());
      }
      forming = tick.waiting.size();
      stages.add(Stage.ASSEMBLE, System.nanoTime() - t1);
    } catch (RuntimeException | Error e) {
      for (Waiting w : batches) {
        w.reply().completeExceptionally(e);
      }
      return;
    }
    for (Waiting w : batches) {
      try {
        w.admitted().accept(w.reply());
      } catch (RuntimeException e) {
        // the batch stays in its tick; what the caller started on it (a chained batch, on an
        // executor that refused it while the server stops) is the caller's to answer
      }
    }
  }

  /** The keys Redis remembered: the only keys looked up in SQL before the commit. */
  private static List<String> remembered(List<Map<String, List<Slot>>> slots) {
    List<String> keys = new ArrayList<>();
    for (Map<String, List<Slot>> batch : slots) {
      for (List<Slot> room : batch.values()) {
        for (Slot s : room) {
          if (!s.redisNew()) {
            keys.add(s.key());
          }
        }
      }
    }
    return keys;
  }
}
