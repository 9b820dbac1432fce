package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.ingest.BatchAssembly.RoundWrites;
import dev.danmakuledger.server.ingest.RoomAdmission.Slot;
import dev.danmakuledger.server.ingest.StageTimes.Stage;
import dev.danmakuledger.server.storage.CommittedBatch;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.SlotTakenException;
import dev.danmakuledger.server.storage.StaleDeviceException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One batch committed on its own transaction, resolving collisions round by round
 * (docs/architecture.md §5): the path of a batch a tick could not commit together with the others.
 * A failed round reads back what it collided with — keys now stored become duplicates, numbers now
 * taken are replaced by fresh ones after the counter is re-seeded — and the batch commits again.
 */
final class CollisionRounds {
  /**
   * Commit rounds of one batch. Every round resolves the collisions it saw, so only other writers
   * racing for the same numbers or keys make another round necessary.
   */
  static final int MAX_COMMIT_ROUNDS = 16;

  /** A batch's plan and what its transaction gave out. */
  record Solo(RoundWrites plan, CommittedBatch batch) {}

  private final LedgerStore store;
  private final RoomAdmission admission;
  private final StageTimes stages;

  CollisionRounds(LedgerStore store, RoomAdmission admission, StageTimes stages) {
    this.store = store;
    this.admission = admission;
    this.stages = stages;
  }

  /**
   * Assembles and commits {@code batch} until it commits.
   *
   * @param admitted the batch's admitted slots by room
   * @param known messages SQL is known to hold, by key
   * @throws StaleDeviceException when the device row moved on, or collisions do not resolve
   */
  Solo commit(ReadyBatch batch, Map<String, List<Slot>> admitted, Map<String, MessageRow> known)
      throws StaleDeviceException {
    String deviceId = batch.deviceId();
    long t0 = System.nanoTime();
    Slots slots = new Slots(admitted);
    Map<String, MessageRow> inSql = new HashMap<>(known);
    Map<String, Set<Long>> taken = new HashMap<>();
    for (int round = 1; ; round++) {
      RoundWrites plan =
          BatchAssembly.assemble(deviceId, batch.triage().rejected(), slots.byRoom(), inSql, taken);
      long t1 = System.nanoTime();
      stages.add(Stage.ASSEMBLE, t1 - t0);
      boolean resolved;
      if (!plan.clashes().isEmpty()) {
        plan.clashes().forEach((room, clashing) -> slots.renumber(room, clashing));
        resolved = true;
      } else {
        try {
          CommittedBatch done = store.commit(batch.commit(plan));
          long statements = done.deviceLogNanos() + done.messagesNanos();
          stages.add(Stage.DEVICE_LOG, done.deviceLogNanos());
          stages.add(Stage.MESSAGES, done.messagesNanos());
          stages.add(Stage.COMMIT, Math.max(0, System.nanoTime() - t1 - statements));
          return new Solo(plan, done);
        } catch (SlotTakenException e) {
          resolved = resolve(plan, slots, inSql, taken);
        }
      }
      t0 = System.nanoTime();
      stages.add(Stage.COMMIT, t0 - t1);
      if (!resolved || round >= MAX_COMMIT_ROUNDS) {
        throw new StaleDeviceException(
            deviceId,
            "batch of " + deviceId + " still collides after " + round + " commit rounds",
            null);
      }
    }
  }

  /**
   * Reads back what a failed commit collided with: keys now stored (they become duplicates) and
   * numbers now taken (their records get fresh numbers, a tombstone is dropped).
   *
   * @return false when SQL shows no collision (the device row or something else raced: retry)
   */
  private boolean resolve(
      RoundWrites plan, Slots slots, Map<String, MessageRow> inSql, Map<String, Set<Long>> taken) {
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
      Set<Long> now = store.takenSeqs(room, e.getValue());
      changed |= taken.computeIfAbsent(room, r -> new HashSet<>()).addAll(now);
      List<Slot> renumber = new ArrayList<>();
      for (Slot s : plan.stored()) {
        if (s.candidate().record().room().equals(room)
            && now.contains(s.seq())
            && !inSql.containsKey(s.key())) {
          renumber.add(s);
        }
      }
      slots.renumber(room, renumber);
      changed |= !renumber.isEmpty();
    }
    return changed;
  }

  /**
   * The batch's slots as the rounds left them: a renumbered slot replaces the one it was (slots are
   * immutable; this map of lists belongs to one call of {@link #commit}).
   */
  private final class Slots {
    private final Map<String, List<Slot>> byRoom = new LinkedHashMap<>();

    Slots(Map<String, List<Slot>> admitted) {
      admitted.forEach((room, list) -> byRoom.put(room, new ArrayList<>(list)));
    }

    Map<String, List<Slot>> byRoom() {
      return byRoom;
    }

    void renumber(String room, List<Slot> old) {
      List<Slot> fresh = admission.renumber(room, old);
      List<Slot> list = byRoom.get(room);
      for (int i = 0; i < old.size(); i++) {
        for (int j = 0; j < list.size(); j++) {
          if (list.get(j) == old.get(i)) {
            list.set(j, fresh.get(i));
          }
        }
      }
    }
  }
}
