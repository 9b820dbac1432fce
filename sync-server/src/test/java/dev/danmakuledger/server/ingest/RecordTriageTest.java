package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.danmakuledger.protocol.clock.Hlc;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.server.ingest.RecordTriage.Candidate;
import dev.danmakuledger.server.ingest.RecordTriage.Triage;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.MessageStatus;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every record of a batch is a candidate of its room or REJECTED in its place, in the batch's
 * order, whether the batch is triaged on one thread or, from {@link RecordTriage#PARALLEL_MIN}
 * records, on several.
 */
final class RecordTriageTest {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String DEVICE = "kiosk";
  private static final long OLD_SIZE = 1_000;

  private static byte[] record(String device, long index, String room, String text, long millis) {
    IdempotencyKey key = IdempotencyKey.generate(device, "u", Clock.systemUTC(), RANDOM);
    return CanonicalRecord.encode(
        new DanmakuRecord(
            key, device, room, "u", text, null, 1, 0, 25, new Hlc(millis, 0).pack(), index));
  }

  /** What the record at each position is meant to become: a room, or a rejection reason. */
  private record Expected(String room, String reason) {}

  @ParameterizedTest
  @ValueSource(ints = {7, RecordTriage.PARALLEL_MIN - 1, RecordTriage.PARALLEL_MIN, 1_000})
  void everyRecordKeepsItsPlace(int size) {
    List<byte[]> batch = new ArrayList<>();
    List<Expected> expected = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      long index = OLD_SIZE + i;
      switch (i % 7) {
        case 1 -> {
          batch.add(new byte[0]);
          expected.add(new Expected(null, RecordTriage.EMPTY));
        }
        case 2 -> {
          batch.add(new byte[CanonicalRecord.MAX_ENCODED_LENGTH + 1]);
          expected.add(new Expected(null, RecordTriage.OVERSIZED));
        }
        case 3 -> {
          byte[] cut = record(DEVICE, index, "r0", "cut short", 5);
          batch.add(Arrays.copyOf(cut, cut.length - 3));
          expected.add(new Expected(null, "invalid"));
        }
        case 4 -> {
          batch.add(record("other-device", index, "r1", "not mine", 5));
          expected.add(new Expected("r1", "wrong-device"));
        }
        case 5 -> {
          batch.add(record(DEVICE, index + 1, "r2", "one too far", 5));
          expected.add(new Expected("r2", "wrong-index"));
        }
        default -> {
          String room = "r" + (i % 3);
          long millis = 1_000L + (i * 7919L) % 5_000;
          batch.add(record(DEVICE, index, room, "message " + i, millis));
          expected.add(new Expected(room, null));
        }
      }
    }

    Triage t = new RecordTriage(new Moderation(List.of(), null)).triage(DEVICE, OLD_SIZE, batch);

    assertEquals(size, t.rejected().length);
    Map<String, List<Candidate>> byRoom = t.byRoom();
    int[] next = new int[3];
    for (int i = 0; i < size; i++) {
      Expected want = expected.get(i);
      DeviceRecordRow row = t.rejected()[i];
      if (want.reason() == null) {
        assertNull(row, "position " + i);
        Candidate c = byRoom.get(want.room()).get(next[want.room().charAt(1) - '0']++);
        assertEquals(i, c.position());
        assertEquals(OLD_SIZE + i, c.index());
        assertArrayEquals(batch.get(i), c.canonical());
        assertEquals("message " + i, c.record().text());
        assertEquals(c.record().contentHash(), c.contentHash());
        assertEquals(MessageStatus.CONFIRMED, c.decision().status());
      } else {
        assertEquals(Outcome.REJECTED, row.outcome(), "position " + i);
        assertEquals(OLD_SIZE + i, row.index());
        assertEquals(want.room(), row.room());
        assertArrayEquals(batch.get(i), row.canonical());
        String reason = row.reason();
        assertEquals(
            want.reason(), want.reason().equals("invalid") ? reason.split("-")[0] : reason);
      }
    }
    for (int r = 0; r < 3; r++) {
      List<Candidate> room = byRoom.getOrDefault("r" + r, List.of());
      assertEquals(next[r], room.size(), "room r" + r + " holds exactly its candidates");
    }
  }

  /**
   * Records in the rooms {@code .} and {@code ..} (valid bytes, captured before agents refused
   * them) are REJECTED in place: no URL could address the room or its log.
   */
  @org.junit.jupiter.api.Test
  void dotRoomsAreRejectedInPlace() {
    List<byte[]> batch =
        List.of(
            record(DEVICE, OLD_SIZE, ".", "a", 1),
            record(DEVICE, OLD_SIZE + 1, "..", "b", 1),
            record(DEVICE, OLD_SIZE + 2, "...", "c", 1));
    Triage t = new RecordTriage(new Moderation(List.of(), null)).triage(DEVICE, OLD_SIZE, batch);
    for (int i = 0; i < 2; i++) {
      assertEquals(Outcome.REJECTED, t.rejected()[i].outcome());
      assertEquals(RecordTriage.INVALID_ROOM, t.rejected()[i].reason());
      assertNull(t.rejected()[i].room(), "never numbered in a room");
    }
    assertNull(t.rejected()[2]);
    assertEquals(List.of("..."), List.copyOf(t.byRoom().keySet()), "three dots: an ordinary room");
  }

  @ParameterizedTest
  @ValueSource(ints = {3, RecordTriage.PARALLEL_MIN + 44})
  void moderationDecidesEveryCandidate(int size) {
    List<byte[]> batch = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String text = i % 3 == 0 ? "BUY spam now" : i % 3 == 1 ? "see http://x.test" : "hello " + i;
      batch.add(record(DEVICE, OLD_SIZE + i, "r", text, 1));
    }
    Moderation rules = new Moderation(List.of("spam"), Pattern.compile("https?://"));

    List<Candidate> room =
        new RecordTriage(rules).triage(DEVICE, OLD_SIZE, batch).byRoom().get("r");

    assertEquals(size, room.size());
    for (Candidate c : room) {
      MessageStatus want =
          switch (c.position() % 3) {
            case 0 -> MessageStatus.REJECTED;
            case 1 -> MessageStatus.PENDING;
            default -> MessageStatus.CONFIRMED;
          };
      assertEquals(want, c.decision().status(), "position " + c.position());
    }
  }
}
