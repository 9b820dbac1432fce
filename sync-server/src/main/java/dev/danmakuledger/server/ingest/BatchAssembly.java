package dev.danmakuledger.server.ingest;

import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.server.ingest.RecordTriage.Candidate;
import dev.danmakuledger.server.ingest.RoomAdmission.Slot;
import dev.danmakuledger.server.storage.Counter;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.MessageRow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Turns the admitted slots of a batch into what its commit writes (docs/architecture.md §5), given
 * what SQL is known to hold. SQL decides: a key SQL holds (or an earlier record of the batch
 * stores) is a DUPLICATE or CONFLICT of that message, and its fresh number becomes a tombstone;
 * every other record is stored as new at its slot's number, orphans of a failed batch included. A
 * pure function of its inputs, so the batch is re-assembled after each collision it resolves.
 */
final class BatchAssembly {
  /** Reason of a tombstone for a number burned by a duplicate caught only in SQL. */
  static final String DUPLICATE_CAUGHT_BY_SQL = "duplicate-caught-by-sql";

  /** Reason of a CONFLICT outcome. */
  static final String KEY_REUSED = "key-reused-with-different-content";

  /**
   * What one round of the batch would commit.
   *
   * @param messages new slots: messages and tombstones
   * @param rows every record of the batch with its outcome, in log order
   * @param stored the slots stored as new messages
   * @param clashes slots whose number another slot of the batch already uses (renumber them)
   * @param counters counter deltas by stored name
   */
  record RoundWrites(
      List<MessageRow> messages,
      List<DeviceRecordRow> rows,
      List<Slot> stored,
      Map<String, List<Slot>> clashes,
      Map<String, Long> counters) {}

  private BatchAssembly() {}

  /**
   * @param rejected the triage's REJECTED rows by position (null where a candidate is)
   * @param slots the admitted slots by room
   * @param inSql messages SQL is known to hold, by key
   * @param taken numbers SQL is known to hold, by room
   */
  static RoundWrites assemble(
      String deviceId,
      DeviceRecordRow[] rejected,
      Map<String, List<Slot>> slots,
      Map<String, MessageRow> inSql,
      Map<String, Set<Long>> taken) {
    DeviceRecordRow[] rows = rejected.clone();
    Map<String, Long> counters = new HashMap<>();
    Map<String, MessageRow> written = new HashMap<>();
    List<MessageRow> messages = new ArrayList<>();
    List<Slot> stored = new ArrayList<>();
    Map<String, List<Slot>> clashes = new LinkedHashMap<>();
    Map<String, Set<Long>> used = new HashMap<>();
    List<MessageRow> tombstones = new ArrayList<>();
    for (Map.Entry<String, List<Slot>> e : slots.entrySet()) {
      String room = e.getKey();
      Set<Long> roomUsed = used.computeIfAbsent(room, r -> new HashSet<>());
      for (Slot s : e.getValue()) {
        Candidate c = s.candidate();
        if (s.renumbered()) {
          counters.merge(Counter.RENUMBERED.key(), 1L, Long::sum);
        }
        MessageRow original =
            inSql.containsKey(s.key()) ? inSql.get(s.key()) : written.get(s.key());
        if (original != null) {
          if (s.freshNumber()) {
            tombstones.add(MessageRow.tombstone(room, s.seq(), DUPLICATE_CAUGHT_BY_SQL));
          }
          Counter layer = s.redisNew() ? Counter.DUPLICATES_SQL : Counter.DUPLICATES_REDIS;
          counters.merge(layer.key(), 1L, Long::sum);
          rows[c.position()] = duplicateOf(deviceId, c, original);
          continue;
        }
        if (!roomUsed.add(s.seq())) {
          clashes.computeIfAbsent(room, r -> new ArrayList<>()).add(s);
          continue;
        }
        if (!s.redisNew()) {
          counters.merge(Counter.ORPHANS.key(), 1L, Long::sum);
        }
        MessageRow row = message(room, s, c);
        messages.add(row);
        stored.add(s);
        written.put(s.key(), row);
        rows[c.position()] =
            new DeviceRecordRow(
                deviceId,
                c.index(),
                s.key(),
                c.canonical(),
                Outcome.valueOf(row.status().name()),
                room,
                s.seq(),
                s.messageId(),
                null,
                c.decision().reason());
      }
    }
    for (MessageRow t : tombstones) {
      Set<Long> roomUsed = used.computeIfAbsent(t.room(), r -> new HashSet<>());
      if (taken.getOrDefault(t.room(), Set.of()).contains(t.seq()) || !roomUsed.add(t.seq())) {
        continue;
      }
      messages.add(t);
      counters.merge(Counter.TOMBSTONES.key(), 1L, Long::sum);
    }
    List<DeviceRecordRow> all = new ArrayList<>(rows.length);
    for (DeviceRecordRow r : rows) {
      if (r == null) {
        continue;
      }
      all.add(r);
      counters.merge(Counter.outcomeKey(r.outcome()), 1L, Long::sum);
      if (r.outcome() == Outcome.REJECTED) {
        counters.merge(Counter.rejectKey(r.reason()), 1L, Long::sum);
      }
      if (r.outcome() == Outcome.CONFLICT) {
        counters.merge(Counter.CONFLICTS.key(), 1L, Long::sum);
      }
    }
    counters.merge(Counter.BATCHES.key(), 1L, Long::sum);
    counters.merge(Counter.RECORDS.key(), (long) rows.length, Long::sum);
    return new RoundWrites(messages, all, stored, clashes, counters);
  }

  private static DeviceRecordRow duplicateOf(String deviceId, Candidate c, MessageRow original) {
    boolean same = Objects.equals(original.contentHash(), c.contentHash());
    return new DeviceRecordRow(
        deviceId,
        c.index(),
        c.key(),
        c.canonical(),
        same ? Outcome.DUPLICATE : Outcome.CONFLICT,
        original.room(),
        original.seq(),
        original.messageId(),
        original.status().name(),
        same ? null : KEY_REUSED);
  }

  private static MessageRow message(String room, Slot s, Candidate c) {
    DanmakuRecord rec = c.record();
    return new MessageRow(
        room,
        s.seq(),
        s.messageId(),
        s.key(),
        c.contentHash(),
        rec.deviceId(),
        c.index(),
        rec.user(),
        rec.text(),
        rec.playbackMs(),
        rec.mode(),
        rec.color(),
        rec.fontSize(),
        rec.hlc(),
        c.decision().status(),
        c.decision().reason(),
        0);
  }
}
