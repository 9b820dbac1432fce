package dev.danmakuledger.server.ingest;

import dev.danmakuledger.lua.Admission;
import dev.danmakuledger.lua.AdmitItem;
import dev.danmakuledger.lua.DedupeScripts.RoomAdmissions;
import dev.danmakuledger.lua.NeedSeedException;
import dev.danmakuledger.server.ingest.RecordTriage.Candidate;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.redis.RoomSequencer;
import dev.danmakuledger.server.storage.LedgerStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The Redis step of a batch (docs/architecture.md §5, check 2): each room's candidates admitted in
 * one atomic call, the calls of all rooms pipelined, giving every record a number — fresh when
 * Redis did not know the key, the one Redis remembers otherwise. Redis only proposes: a remembered
 * key is a duplicate only if SQL holds it (else it is an orphan of a batch that never committed and
 * is stored as new, at the number Redis remembers), and a number SQL shows taken is replaced by a
 * fresh one after the counter is re-seeded above SQL's high-water mark. The high-water marks are
 * read here, from SQL, only when Redis lost a counter or a number turned out taken: the Redis
 * sequencer reads nothing but Redis.
 */
final class RoomAdmission {
  /** Seeds of one room in one admission before giving up (a counter that keeps vanishing). */
  static final int MAX_SEED_ROUNDS = 3;

  /**
   * One candidate's place in its room: what Redis said and the number it holds.
   *
   * @param redisNew Redis did not know the key (or this is a re-run of this very admission)
   * @param messageId the message id the record is stored under if it is new
   * @param freshNumber the number was handed out for this record now (it is burned if the record is
   *     not stored)
   * @param renumbered the number replaced one SQL showed taken
   */
  record Slot(
      Candidate candidate,
      boolean redisNew,
      long messageId,
      long seq,
      boolean freshNumber,
      boolean renumbered) {
    /** The slot Redis gave: a fresh number exactly when Redis did not know the key. */
    Slot(Candidate candidate, boolean redisNew, long messageId, long seq) {
      this(candidate, redisNew, messageId, seq, redisNew, false);
    }

    String key() {
      return candidate.key();
    }

    /** This slot at fresh number {@code to}. */
    Slot renumberedTo(long to) {
      return new Slot(candidate, redisNew, messageId, to, true, true);
    }
  }

  private final RoomSequencer sequencer;
  private final MessageIds messageIds;
  private final LedgerStore store;
  private volatile Consumer<Set<String>> numbered = rooms -> {};

  RoomAdmission(RoomSequencer sequencer, MessageIds messageIds, LedgerStore store) {
    this.sequencer = sequencer;
    this.messageIds = messageIds;
    this.store = store;
  }

  /**
   * Tells {@code sink} the rooms of every admission and renumbering before Redis is asked, so that
   * a number handed out and never committed is looked for there (the gap sealer).
   */
  void notingRoomsTo(Consumer<Set<String>> sink) {
    this.numbered = Objects.requireNonNull(sink, "sink");
  }

  /**
   * Admits every room's candidates, each room atomically in one Redis script run per bucket of
   * rooms, all runs in one round trip; rooms keep their order.
   */
  Map<String, List<Slot>> admit(Map<String, List<Candidate>> byRoom) {
    numbered.accept(byRoom.keySet());
    Map<String, List<AdmitItem>> items = new LinkedHashMap<>();
    for (Map.Entry<String, List<Candidate>> e : byRoom.entrySet()) {
      List<AdmitItem> room = new ArrayList<>(e.getValue().size());
      for (Candidate c : e.getValue()) {
        room.add(new AdmitItem(c.key(), c.contentHash(), messageIds.next()));
      }
      items.put(e.getKey(), room);
    }
    Map<String, List<Admission>> admitted = admitSeeding(items);
    Map<String, List<Slot>> slots = new LinkedHashMap<>();
    for (Map.Entry<String, List<Candidate>> e : byRoom.entrySet()) {
      List<Candidate> cands = e.getValue();
      List<AdmitItem> roomItems = items.get(e.getKey());
      List<Admission> answers = admitted.get(e.getKey());
      List<Slot> room = new ArrayList<>(cands.size());
      for (int j = 0; j < cands.size(); j++) {
        Admission a = answers.get(j);
        AdmitItem item = roomItems.get(j);
        boolean fresh = a.status() == Admission.Status.NEW || a.isReplayOf(item);
        room.add(new Slot(cands.get(j), fresh, item.candidateMessageId(), a.seq()));
      }
      slots.put(e.getKey(), room);
    }
    return slots;
  }

  /**
   * Admits every room's items in one round trip; the rooms whose counter Redis lost are seeded from
   * SQL's high-water marks (one query and one round trip for all of them) and admitted again
   * (re-running an admit is safe: what a first run stored comes back as replays).
   */
  private Map<String, List<Admission>> admitSeeding(Map<String, List<AdmitItem>> items) {
    Map<String, List<Admission>> answers = new HashMap<>();
    Map<String, List<AdmitItem>> pending = items;
    for (int round = 0; ; round++) {
      RoomAdmissions r = sequencer.admitRooms(pending);
      answers.putAll(r.admitted());
      if (r.needSeed().isEmpty()) {
        return answers;
      }
      if (round >= MAX_SEED_ROUNDS) {
        throw new IllegalStateException(
            "rooms " + r.needSeed() + ": counter still missing after " + round + " seeds");
      }
      sequencer.seedRooms(store.maxSeqs(r.needSeed()));
      Map<String, List<AdmitItem>> again = new LinkedHashMap<>();
      for (String room : r.needSeed()) {
        again.put(room, items.get(room));
      }
      pending = again;
    }
  }

  /**
   * Admits the candidates of every batch of a tick in one Redis round trip: each room's candidates
   * of all batches in one atomic call, batches in the given order within a room.
   *
   * @return each batch's slots by room, in the order of {@code batches}
   */
  List<Map<String, List<Slot>>> admitTick(List<Map<String, List<Candidate>>> batches) {
    Map<String, List<Candidate>> merged = new LinkedHashMap<>();
    for (Map<String, List<Candidate>> b : batches) {
      b.forEach(
          (room, cands) -> merged.computeIfAbsent(room, r -> new ArrayList<>()).addAll(cands));
    }
    Map<String, List<Slot>> all = admit(merged);
    Map<String, Integer> taken = new HashMap<>();
    List<Map<String, List<Slot>>> out = new ArrayList<>(batches.size());
    for (Map<String, List<Candidate>> b : batches) {
      Map<String, List<Slot>> slots = new LinkedHashMap<>();
      for (Map.Entry<String, List<Candidate>> e : b.entrySet()) {
        int from = taken.getOrDefault(e.getKey(), 0);
        int to = from + e.getValue().size();
        slots.put(e.getKey(), new ArrayList<>(all.get(e.getKey()).subList(from, to)));
        taken.put(e.getKey(), to);
      }
      out.add(slots);
    }
    return out;
  }

  /**
   * Gives each slot a fresh number of its room (the counter re-seeded above SQL first).
   *
   * @return the slots at their new numbers, in the given order
   */
  List<Slot> renumber(String room, List<Slot> slots) {
    if (slots.isEmpty()) {
      return List.of();
    }
    numbered.accept(Set.of(room));
    List<Long> ids = new ArrayList<>(slots.size());
    for (int i = 0; i < slots.size(); i++) {
      ids.add(messageIds.next());
    }
    List<Long> seqs = freshNumbers(room, ids);
    List<Slot> out = new ArrayList<>(slots.size());
    for (int i = 0; i < slots.size(); i++) {
      out.add(slots.get(i).renumberedTo(seqs.get(i)));
    }
    return out;
  }

  /** Fresh numbers above SQL's high-water mark of {@code room}, one per id. */
  private List<Long> freshNumbers(String room, List<Long> ids) {
    for (int round = 0; ; round++) {
      try {
        return sequencer.freshNumbers(room, store.maxSeq(room), ids);
      } catch (NeedSeedException e) {
        if (round >= MAX_SEED_ROUNDS) {
          throw new IllegalStateException(
              "room " + room + ": counter still missing after " + round + " seeds", e);
        }
      }
    }
  }
}
