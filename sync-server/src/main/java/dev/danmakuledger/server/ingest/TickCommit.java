package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.ingest.CollisionRounds.Solo;
import dev.danmakuledger.server.ingest.StageTimes.Stage;
import dev.danmakuledger.server.ingest.TickSequencer.Assembled;
import dev.danmakuledger.server.ingest.TickSequencer.Committed;
import dev.danmakuledger.server.storage.BatchCommit;
import dev.danmakuledger.server.storage.CommittedTick;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.SlotTakenException;
import dev.danmakuledger.server.storage.StaleDeviceException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The commit of one tick, on the committer thread (docs/architecture.md §5, "Ticks", "Failure
 * isolation" and "Batches in flight"): the batches that commit together in one transaction, split
 * in halves while a transaction fails, then those that commit alone through {@link
 * CollisionRounds}; a batch commits only after its predecessor did and is refused if that one
 * failed. What committed is announced, then every batch's reply completes.
 */
final class TickCommit {
  private final LedgerStore store;
  private final CollisionRounds solo;
  private final RoomHub rooms;
  private final StageTimes stages;
  private volatile StageObserver observer = StageObserver.NONE;

  TickCommit(LedgerStore store, CollisionRounds solo, RoomHub rooms, StageTimes stages) {
    this.store = store;
    this.solo = solo;
    this.rooms = rooms;
    this.stages = stages;
  }

  void observedBy(StageObserver observer) {
    this.observer = Objects.requireNonNull(observer, "observer");
  }

  /**
   * Commits a tick on the committer thread: its batches together, then those that wait alone, in
   * the order they were admitted.
   */
  void commit(List<Assembled> together, List<Assembled> alone, Map<String, MessageRow> known) {
    commitTogether(together, known);
    for (Assembled a : alone) {
      commitAlone(a, known);
    }
  }

  /**
   * The batches of {@code part} whose plans stand: every row of another batch a plan counted on was
   * stored as planned, or is planned by a batch before it in {@code part} (the same transaction
   * stores both). The others, and their devices' later batches of {@code part}, are added to {@code
   * alone} in order: they commit alone after the part, where their collisions are resolved against
   * SQL.
   */
  private static List<Assembled> standing(List<Assembled> part, List<Assembled> alone) {
    List<Assembled> out = new ArrayList<>(part.size());
    Set<CompletableFuture<?>> earlier = Collections.newSetFromMap(new IdentityHashMap<>());
    Set<String> demoted = new HashSet<>();
    for (Assembled a : part) {
      String device = a.waiting().batch().deviceId();
      if (demoted.contains(device) || !stands(a.planned(), earlier)) {
        demoted.add(device);
        alone.add(a);
      } else {
        out.add(a);
        earlier.add(a.waiting().reply());
      }
    }
    return out;
  }

  private static boolean stands(
      List<PlannedRows.Planned> planned, Set<CompletableFuture<?>> earlier) {
    for (PlannedRows.Planned p : planned) {
      if (p.owner().isDone() ? !p.stored() : !earlier.contains(p.owner())) {
        return false;
      }
    }
    return true;
  }

  /**
   * The batches of {@code part} whose predecessors committed, or are in {@code part} before them
   * (the same transaction commits both, in log order); the others fail with {@link
   * InFlightBatches.PredecessorFailedException}, and the numbers Redis gave them are left to the
   * gap sealer like those of any batch that failed after its admission.
   */
  private static List<Assembled> followingCommitted(List<Assembled> part) {
    List<Assembled> out = new ArrayList<>(part.size());
    Set<CompletableFuture<?>> earlier = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Assembled a : part) {
      CompletableFuture<?> predecessor = a.waiting().batch().predecessor();
      Throwable failure =
          predecessor != null && !predecessor.isDone() && earlier.contains(predecessor)
              ? null
              : a.waiting().batch().predecessorFailure();
      if (failure == null) {
        out.add(a);
        earlier.add(a.waiting().reply());
      } else {
        a.waiting()
            .reply()
            .completeExceptionally(new InFlightBatches.PredecessorFailedException(failure));
      }
    }
    return out;
  }

  /**
   * Commits the batches of {@code admitted} whose predecessors committed in one transaction; when
   * that fails, each half again, down to single batches, so one batch's failure fails no other
   * batch but those that follow it.
   */
  private void commitTogether(List<Assembled> admitted, Map<String, MessageRow> known) {
    List<Assembled> alone = new ArrayList<>();
    List<Assembled> part = standing(followingCommitted(admitted), alone);
    if (part.size() == 1) {
      commitAlone(part.get(0), known);
    } else if (part.size() > 1) {
      commitPart(part, known);
    }
    for (Assembled a : alone) {
      commitAlone(a, known);
    }
  }

  /**
   * Commits {@code part}, two batches or more whose predecessors committed and whose plans stand,
   * in one transaction; when that fails, each half through {@link #commitTogether}.
   */
  private void commitPart(List<Assembled> part, Map<String, MessageRow> known) {
    List<BatchCommit> commits = new ArrayList<>(part.size());
    for (Assembled a : part) {
      commits.add(a.commit());
    }
    long t0 = System.nanoTime();
    StageObserver.Scope scope = observer.start(PipelineStage.COMMIT);
    CommittedTick done;
    try {
      done = store.commitTick(commits);
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
    if (followingCommitted(List.of(a)).isEmpty()) {
      return;
    }
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
