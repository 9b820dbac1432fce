package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.clock.Hlc;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.server.ingest.BatchAssembly.RoundWrites;
import dev.danmakuledger.server.ingest.RecordTriage.Candidate;
import dev.danmakuledger.server.ingest.RoomAdmission.Slot;
import dev.danmakuledger.server.storage.Counter;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.MessageStatus;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** SQL decides what each admitted slot becomes (docs/architecture.md §5). */
final class BatchAssemblyTest {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String DEVICE = "dev";

  private int position;

  private Candidate candidate(String room, String text) {
    IdempotencyKey key = IdempotencyKey.generate(DEVICE, "u", Clock.systemUTC(), RANDOM);
    return candidate(key, room, text);
  }

  private Candidate candidate(IdempotencyKey key, String room, String text) {
    int i = position++;
    DanmakuRecord r =
        new DanmakuRecord(key, DEVICE, room, "u", text, null, 1, 0, 25, new Hlc(1, 0).pack(), i);
    return new Candidate(
        i,
        i,
        r.canonicalBytes(),
        r,
        key.toString(),
        r.contentHash(),
        new Moderation.Decision(MessageStatus.CONFIRMED, null));
  }

  private static MessageRow stored(Candidate c, String room, long seq, String contentHash) {
    return new MessageRow(
        room,
        seq,
        99L,
        c.key(),
        contentHash,
        "other",
        0L,
        "u",
        "t",
        null,
        1,
        0,
        25,
        0,
        MessageStatus.CONFIRMED,
        null,
        0);
  }

  private RoundWrites assemble(Map<String, List<Slot>> slots, Map<String, MessageRow> inSql) {
    return BatchAssembly.assemble(
        DEVICE, new DeviceRecordRow[position], slots, inSql, Map.of("r", Set.of(9L)));
  }

  @Test
  void anOrphanIsStoredAsNewAtTheNumberRedisRemembers() {
    Candidate c = candidate("r", "orphan");
    RoundWrites p = assemble(Map.of("r", List.of(new Slot(c, false, 7, 3))), Map.of());
    assertEquals(1, p.messages().size());
    assertEquals(3, p.messages().get(0).seq());
    assertEquals(7L, p.messages().get(0).messageId());
    assertEquals(Outcome.CONFIRMED, p.rows().get(0).outcome());
    assertEquals(1L, p.counters().get(Counter.ORPHANS.key()));
  }

  @Test
  void aKeySqlHoldsIsAConflictNamingTheStoredMessageAndItsFreshNumberATombstone() {
    Candidate c = candidate("r", "new content");
    MessageRow original = stored(c, "other-room", 5, "different");
    RoundWrites p =
        assemble(Map.of("r", List.of(new Slot(c, true, 7, 4))), Map.of(c.key(), original));
    DeviceRecordRow row = p.rows().get(0);
    assertEquals(Outcome.CONFLICT, row.outcome());
    assertEquals("other-room", row.wire().room());
    assertEquals(5L, row.seq());
    assertEquals(99L, row.messageId());
    assertEquals(
        List.of(MessageRow.tombstone("r", 4, BatchAssembly.DUPLICATE_CAUGHT_BY_SQL)), p.messages());
    assertEquals(1L, p.counters().get(Counter.DUPLICATES_SQL.key()));
  }

  @Test
  void aRememberedNumberIsNeverTombstonedAndATakenOneIsNotWrittenAgain() {
    Candidate remembered = candidate("r", "a");
    Candidate taken = candidate("r", "b");
    Map<String, MessageRow> inSql = new LinkedHashMap<>();
    inSql.put(remembered.key(), stored(remembered, "r", 2, remembered.contentHash()));
    inSql.put(taken.key(), stored(taken, "r", 8, taken.contentHash()));
    List<Slot> room = List.of(new Slot(remembered, false, 7, 6), new Slot(taken, true, 8, 9));
    RoundWrites p = assemble(Map.of("r", room), inSql);
    assertTrue(p.messages().isEmpty(), p.messages().toString());
    assertEquals(Outcome.DUPLICATE, p.rows().get(0).outcome());
    assertEquals(2L, p.rows().get(0).seq());
    assertEquals(Outcome.DUPLICATE, p.rows().get(1).outcome());
  }

  @Test
  void twoSlotsOfTheBatchOnOneNumberClashAndTheLaterOneIsRenumbered() {
    Candidate first = candidate("r", "first");
    Candidate second = candidate("r", "second");
    Slot late = new Slot(second, true, 8, 3);
    RoundWrites p = assemble(Map.of("r", List.of(new Slot(first, false, 7, 3), late)), Map.of());
    assertEquals(Map.of("r", List.of(late)), p.clashes());
  }

  @Test
  void aKeyRepeatedInTheBatchIsADuplicateOfItsFirstRecord() {
    IdempotencyKey key = IdempotencyKey.generate(DEVICE, "u", Clock.systemUTC(), RANDOM);
    Candidate first = candidate(key, "r", "same");
    Candidate again = candidate(key, "r", "same");
    Candidate elsewhere = candidate(key, "s", "same");
    Map<String, List<Slot>> slots = new LinkedHashMap<>();
    slots.put("r", List.of(new Slot(first, true, 7, 1), new Slot(again, false, 7, 1)));
    slots.put("s", new ArrayList<>(List.of(new Slot(elsewhere, true, 8, 1))));
    RoundWrites p = assemble(slots, Map.of());
    assertEquals(Outcome.CONFIRMED, p.rows().get(0).outcome());
    assertEquals(Outcome.DUPLICATE, p.rows().get(1).outcome());
    assertEquals(Outcome.CONFLICT, p.rows().get(2).outcome(), "content hash covers the room");
    assertEquals("r", p.rows().get(2).wire().room());
    assertEquals(
        List.of(MessageStatus.CONFIRMED, MessageStatus.TOMBSTONE),
        p.messages().stream().map(MessageRow::status).toList());
  }
}
