package dev.danmakuledger.server.ingest;

import dev.danmakuledger.lua.Admission;
import dev.danmakuledger.lua.AdmitItem;
import dev.danmakuledger.server.ingest.RecordTriage.Candidate;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.redis.RoomSequencer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Redis step of a batch (docs/architecture.md §5, check 2): each room's candidates admitted in
 * one atomic call, the calls of all rooms pipelined, giving every record a number — fresh when
 * Redis did not know the key, the one Redis remembers otherwise. Redis only proposes: a remembered
 * key is a duplicate only if SQL holds it (else it is an orphan of a batch that never committed and
 * is stored as new, at the number Redis remembers), and a number SQL shows taken is replaced by a
 * fresh one after the counter is re-seeded above SQL's high-water mark.
 */
final class RoomAdmission {
  /** One candidate's place in its room: what Redis said and the number it holds now. */
  static final class Slot {
    final Candidate candidate;

    /** Redis did not know the key (or this is a re-run of this very admission). */
    final boolean redisNew;

    /** The message id the record is stored under if it is new. */
    final long messageId;

    long seq;

    /** The number was handed out for this record now (it is burned if the record is not stored). */
    boolean freshNumber;

    boolean renumbered;

    Slot(Candidate candidate, boolean redisNew, long messageId, long seq) {
      this.candidate = candidate;
      this.redisNew = redisNew;
      this.messageId = messageId;
      this.seq = seq;
      this.freshNumber = redisNew;
    }

    String key() {
      return candidate.key();
    }
  }

  private final RoomSequencer sequencer;
  private final MessageIds messageIds;

  RoomAdmission(RoomSequencer sequencer, MessageIds messageIds) {
    this.sequencer = sequencer;
    this.messageIds = messageIds;
  }

  /**
   * Admits every room's candidates, one atomic Redis call per room, all rooms' calls in one round
   * trip; rooms keep their order.
   */
  Map<String, List<Slot>> admit(Map<String, List<Candidate>> byRoom) {
    Map<String, List<AdmitItem>> items = new LinkedHashMap<>();
    for (Map.Entry<String, List<Candidate>> e : byRoom.entrySet()) {
      List<AdmitItem> room = new ArrayList<>(e.getValue().size());
      for (Candidate c : e.getValue()) {
        room.add(new AdmitItem(c.key(), c.contentHash(), messageIds.next()));
      }
      items.put(e.getKey(), room);
    }
    Map<String, List<Admission>> admitted = sequencer.admitRooms(items);
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

  /** Gives each slot a fresh number of its room (the counter re-seeded above SQL first). */
  void renumber(String room, List<Slot> slots) {
    if (slots.isEmpty()) {
      return;
    }
    List<Long> ids = new ArrayList<>(slots.size());
    for (int i = 0; i < slots.size(); i++) {
      ids.add(messageIds.next());
    }
    List<Long> seqs = sequencer.freshNumbers(room, ids);
    for (int i = 0; i < slots.size(); i++) {
      Slot s = slots.get(i);
      s.seq = seqs.get(i);
      s.freshNumber = true;
      s.renumbered = true;
    }
  }
}
