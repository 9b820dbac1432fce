package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.ingest.BatchAssembly.Plan;
import dev.danmakuledger.server.ingest.CollisionRounds.Solo;
import dev.danmakuledger.server.ingest.RecordTriage.Candidate;
import dev.danmakuledger.server.ingest.RoomAdmission.Slot;
import dev.danmakuledger.server.ingest.StageTimes.Stage;
import dev.danmakuledger.server.storage.AlertRow;
import dev.danmakuledger.server.storage.BatchCommit;
import dev.danmakuledger.server.storage.CommittedTick;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.SlotTakenException;
import dev.danmakuledger.server.storage.StaleDeviceException;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The write path's unit of work, a tick (docs/architecture.md §5, "Ticks"): batches that finished
 * their request stages wait here, and one sequencer thread takes every batch that is ready — all
 * devices, all rooms — admits their candidates in one Redis round trip, assembles each batch's plan
 * against one SQL lookup of the keys Redis remembered, commits them in one transaction, broadcasts
 * what committed and then releases every waiting request. A tick closes when nothing more is ready
 * or before it would pass {@link #MAX_TICK_RECORDS}: a lone batch on an idle server is not delayed,
 * and under load a tick holds what arrived while the previous one committed (group commit).
 *
 * <p>Failure isolation: a tick whose transaction fails is split in halves and each half committed
 * again, down to single batches, which commit through {@link CollisionRounds}; a batch whose plan
 * overlaps an earlier batch of its tick (a key or number both hold) commits alone after the tick.
 * One batch per device per tick: a device's later batch waits for the next tick.
 */
final class TickSequencer implements AutoCloseable {
  /**
   * A tick takes no batch that would bring it past this many records (a batch is never split: a
   * larger one is a tick of its own).
   */
  static final int MAX_TICK_RECORDS = 4096;

  private static final long IDLE_POLL_MILLIS = 100;

  /**
   * What the tick did for one batch: its final plan and the STUCK alert its queue report raised.
   */
  record Committed(Plan plan, Optional<AlertRow> queueAlert) {}

  private record Waiting(ReadyBatch batch, CompletableFuture<Committed> reply) {}

  private record Assembled(Waiting waiting, Map<String, List<Slot>> slots, Plan plan) {
    BatchCommit commit() {
      return waiting.batch().commit(plan);
    }
  }

  private final LinkedBlockingQueue<Waiting> queue = new LinkedBlockingQueue<>();

  /** Batches left over by the last tick, oldest first; touched by the sequencer thread only. */
  private final ArrayDeque<Waiting> carried = new ArrayDeque<>();

  private final LedgerStore store;
  private final RoomAdmission admission;
  private final CollisionRounds solo;
  private final RoomHub rooms;
  private final StageTimes stages;
  private final Thread thread;
  private volatile StageObserver observer = StageObserver.NONE;
  private volatile boolean closed;

  private TickSequencer(
      LedgerStore store, RoomAdmission admission, RoomHub rooms, StageTimes stages) {
    this.store = store;
    this.admission = admission;
    this.solo = new CollisionRounds(store, admission, stages);
    this.rooms = rooms;
    this.stages = stages;
    this.thread = new Thread(this::run, "tick-sequencer");
    this.thread.setDaemon(true);
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
    t.thread.start();
    return t;
  }

  void observedBy(StageObserver observer) {
    this.observer = Objects.requireNonNull(observer, "observer");
  }

  /**
   * Hands {@code batch} to the next tick and waits until its tick committed it.
   *
   * @throws StaleDeviceException when its device row moved on, or its collisions did not resolve
   * @throws RuntimeException what the admission or the commit failed with (Redis or SQL
   *     unavailable)
   */
  Committed commit(ReadyBatch batch) throws StaleDeviceException {
    Waiting w = new Waiting(batch, new CompletableFuture<>());
    queue.add(w);
    if (closed) {
      w.reply().completeExceptionally(stopped());
    }
    try {
      return w.reply().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageUnavailableException("interrupted waiting for a tick", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof StaleDeviceException stale) {
        throw stale;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException("tick failed: " + cause, cause);
    }
  }

  /**
   * Batches handed over and not yet taken by a tick: the depth of the sequencer's queue (a gauge;
   * also the seam the tick tests wait on).
   */
  int waiting() {
    return queue.size();
  }

  /** Stops the sequencer; batches still waiting are refused as storage unavailable. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(10));
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
        List<Waiting> tick = nextTick();
        if (!tick.isEmpty()) {
          runTick(tick);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      for (Waiting w : carried) {
        w.reply().completeExceptionally(stopped());
      }
      carried.clear();
      refuseWaiting();
    }
  }

  /**
   * The batches of the next tick: those left over first, then every batch waiting, at most one per
   * device (a device's later batch stays for a later tick, so its log extends in order), closed at
   * {@link #MAX_TICK_RECORDS}. Waits for a batch only when none is ready.
   */
  private List<Waiting> nextTick() throws InterruptedException {
    List<Waiting> ready = new ArrayList<>(carried);
    carried.clear();
    if (ready.isEmpty()) {
      Waiting first = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
      if (first == null) {
        return List.of();
      }
      ready.add(first);
    }
    queue.drainTo(ready);
    List<Waiting> tick = new ArrayList<>();
    Set<String> devices = new HashSet<>();
    long records = 0;
    for (Waiting w : ready) {
      boolean full = !tick.isEmpty() && records + w.batch().records() > MAX_TICK_RECORDS;
      if (!devices.add(w.batch().deviceId()) || full) {
        carried.add(w);
        continue;
      }
      tick.add(w);
      records += w.batch().records();
    }
    return tick;
  }

  private void runTick(List<Waiting> tick) {
    stages.countTick();
    try {
      long t0 = System.nanoTime();
      List<Map<String, List<Candidate>>> candidates = new ArrayList<>(tick.size());
      for (Waiting w : tick) {
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
      List<Assembled> together = new ArrayList<>();
      List<Assembled> alone = new ArrayList<>();
      Set<String> claimed = new HashSet<>();
      for (int i = 0; i < tick.size(); i++) {
        Waiting w = tick.get(i);
        Plan plan =
            BatchAssembly.assemble(
                w.batch().deviceId(), w.batch().triage().rejected(), slots.get(i), known, Map.of());
        Assembled a = new Assembled(w, slots.get(i), plan);
        if (plan.clashes().isEmpty() && claim(plan, claimed)) {
          together.add(a);
        } else {
          alone.add(a);
        }
      }
      stages.add(Stage.ASSEMBLE, System.nanoTime() - t1);
      commitTogether(together, known);
      for (Assembled a : alone) {
        commitAlone(a, known);
      }
    } catch (RuntimeException | Error e) {
      for (Waiting w : tick) {
        w.reply().completeExceptionally(e);
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

  /**
   * Claims the keys and numbers {@code plan} writes unless an earlier plan of the tick holds one of
   * them (then the plan commits alone, after the tick, and its collision is resolved there).
   */
  private static boolean claim(Plan plan, Set<String> claimed) {
    List<String> mine = new ArrayList<>(plan.messages().size() * 2);
    for (MessageRow m : plan.messages()) {
      mine.add("#" + m.room() + '\u0000' + m.seq());
      if (m.idempotencyKey() != null) {
        mine.add("k" + m.idempotencyKey());
      }
    }
    for (String c : mine) {
      if (claimed.contains(c)) {
        return false;
      }
    }
    claimed.addAll(mine);
    return true;
  }

  /**
   * Commits {@code part} in one transaction; when that fails, each half again, down to single
   * batches, so one batch's failure fails no other batch.
   */
  private void commitTogether(List<Assembled> part, Map<String, MessageRow> known) {
    if (part.isEmpty()) {
      return;
    }
    if (part.size() == 1) {
      commitAlone(part.get(0), known);
      return;
    }
    List<BatchCommit> commits = new ArrayList<>(part.size());
    for (Assembled a : part) {
      commits.add(a.commit());
    }
    long t0 = System.nanoTime();
    StageObserver.Scope scope = observer.start(PipelineStage.COMMIT);
    CommittedTick done;
    try {
      done = store.batches().commitTick(commits);
    } catch (StaleDeviceException | SlotTakenException | RuntimeException e) {
      scope.failed(e);
      scope.end();
      stages.add(Stage.COMMIT, System.nanoTime() - t0);
      int half = part.size() / 2;
      commitTogether(part.subList(0, half), known);
      commitTogether(part.subList(half, part.size()), known);
      return;
    }
    scope.end();
    stages.add(Stage.DEVICE_LOG, done.deviceLogNanos());
    stages.add(Stage.MESSAGES, done.messagesNanos());
    stages.add(Stage.COMMIT, done.commitNanos());
    rooms.announce(done.confirmed());
    for (int i = 0; i < part.size(); i++) {
      Assembled a = part.get(i);
      a.waiting().reply().complete(new Committed(a.plan(), done.queueAlerts().get(i)));
    }
  }

  private void commitAlone(Assembled a, Map<String, MessageRow> known) {
    StageObserver.Scope scope = observer.start(PipelineStage.COMMIT);
    try {
      Solo done = solo.commit(a.waiting().batch(), a.slots(), known);
      scope.end();
      rooms.announce(done.batch().confirmed());
      a.waiting().reply().complete(new Committed(done.plan(), done.batch().queueAlert()));
    } catch (StaleDeviceException | RuntimeException e) {
      scope.failed(e);
      scope.end();
      a.waiting().reply().completeExceptionally(e);
    }
  }
}
