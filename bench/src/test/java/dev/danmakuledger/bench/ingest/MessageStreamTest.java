package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The e2e workload: the retry share is exact and retries are byte-identical to their originals. */
class MessageStreamTest {
  private static final List<String> ROOMS = List.of("r0", "r1", "r2");

  @Property(seed = "20261130", tries = 200)
  void everyBatchAfterTheFirstCarriesTheRequestedShareOfRetries(
      @ForAll @IntRange(min = 1, max = 1000) int size,
      @ForAll @IntRange(min = 0, max = 9) int tenths) {
    double share = tenths / 10.0;
    MessageStream s = new MessageStream("dev-1", ROOMS, share, 7, 1_764_000_000_000L);
    Set<String> seen = new HashSet<>();
    for (int b = 0; b < 3; b++) {
      List<DanmakuRecord> batch = s.nextBatch(size);
      assertEquals(size, batch.size());
      int repeats = 0;
      Set<String> fresh = new HashSet<>();
      for (DanmakuRecord r : batch) {
        String key = r.key().toString();
        if (seen.contains(key)) {
          repeats++;
        } else {
          fresh.add(key);
        }
        assertEquals("dev-1", r.key().deviceId());
        assertTrue(ROOMS.contains(r.room()), r.room());
      }
      int want = b == 0 ? 0 : (int) Math.round(size * share);
      assertEquals(want, repeats, "batch " + b + " of " + size + " at share " + share);
      seen.addAll(fresh);
    }
  }

  @Test
  void retriesRepeatTheOriginalContent() {
    MessageStream s = new MessageStream("dev-1", ROOMS, 0.5, 3, 1_764_000_000_000L);
    List<DanmakuRecord> first = s.nextBatch(10);
    List<DanmakuRecord> second = s.nextBatch(10);
    int matched = 0;
    for (DanmakuRecord r : second) {
      for (DanmakuRecord o : first) {
        if (o.key().equals(r.key())) {
          assertEquals(o.contentHash(), r.contentHash());
          matched++;
        }
      }
    }
    assertEquals(5, matched);
    assertEquals(15, s.distinct());
  }

  @Test
  void oneInEachRoomGivesEveryRoomOneNewMessageInRoomOrder() {
    MessageStream s = new MessageStream("dev-1", ROOMS, 0.5, 5, 1_764_000_000_000L);
    List<DanmakuRecord> firsts = s.oneInEachRoom();
    assertEquals(ROOMS, firsts.stream().map(DanmakuRecord::room).toList());
    assertEquals(3, s.distinct());
    Set<String> keys = new HashSet<>();
    firsts.forEach(r -> keys.add(r.key().toString()));
    assertEquals(3, keys.size());
    // the next batch's retries repeat them: they are part of the device's history
    int repeats = 0;
    for (DanmakuRecord r : s.nextBatch(4)) {
      if (!keys.add(r.key().toString())) {
        repeats++;
      }
    }
    assertEquals(2, repeats);
  }

  @Test
  void sameSeedSameMessages() {
    MessageStream a = new MessageStream("d", ROOMS, 0.1, 9, 1_764_000_000_000L);
    MessageStream b = new MessageStream("d", ROOMS, 0.1, 9, 1_764_000_000_000L);
    for (int i = 0; i < 5; i++) {
      assertEquals(a.nextBatch(50), b.nextBatch(50));
    }
  }

  @Test
  void refusesBadSettings() {
    assertEquals(
        "duplicate share: got 0.95, want 0..0.9",
        assertThrows(
                IllegalArgumentException.class,
                () -> new MessageStream("d", ROOMS, 0.95, 1, 1_764_000_000_000L))
            .getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> new MessageStream("d", List.of(), 0.1, 1, 1_764_000_000_000L));
    MessageStream s = new MessageStream("d", ROOMS, 0.1, 1, 1_764_000_000_000L);
    assertEquals(
        "batch size: got 0, want >= 1",
        assertThrows(IllegalArgumentException.class, () -> s.nextBatch(0)).getMessage());
  }
}
