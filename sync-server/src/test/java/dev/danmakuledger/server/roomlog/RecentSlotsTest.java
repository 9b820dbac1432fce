package dev.danmakuledger.server.roomlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.server.storage.LogSlot;
import dev.danmakuledger.server.storage.MessageStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class RecentSlotsTest {
  private static LogSlot tombstone(long seq) {
    return new LogSlot(seq, MessageStatus.TOMBSTONE, "gap-sealed", null, null, null, null, null);
  }

  private static List<LogSlot> tombstones(long from, long to) {
    List<LogSlot> out = new ArrayList<>();
    for (long s = from; s <= to; s++) {
      out.add(tombstone(s));
    }
    return out;
  }

  private static List<Long> seqs(List<LogSlot> slots) {
    return slots.stream().map(LogSlot::seq).toList();
  }

  @Test
  void theRunAboveASizeStopsAtTheFirstNumberNotHeld() {
    RecentSlots recent = new RecentSlots(100);
    recent.offer("r", tombstones(4, 6));
    recent.offer("r", tombstones(1, 2));
    assertEquals(List.of(1L, 2L), seqs(recent.runAbove("r", 0, 10)), "3 is not held");
    assertEquals(List.of(), seqs(recent.runAbove("r", 2, 10)));
    assertEquals(List.of(4L, 5L, 6L), seqs(recent.runAbove("r", 3, 10)));
    assertEquals(List.of(4L, 5L), seqs(recent.runAbove("r", 3, 2)), "at most max");
    assertEquals(List.of(), seqs(recent.runAbove("other", 0, 10)));
  }

  @Test
  void forgettingDropsWhatIsIntegratedAndFreesRoom() {
    RecentSlots recent = new RecentSlots(5);
    recent.offer("r", tombstones(1, 5));
    assertEquals(5, recent.size());
    recent.offer("r", tombstones(6, 6));
    assertEquals(5, recent.size(), "over the limit: dropped, read from SQL later");
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), seqs(recent.runAbove("r", 0, 10)));
    recent.forgetUpTo("r", 3);
    assertEquals(2, recent.size());
    assertEquals(List.of(), seqs(recent.runAbove("r", 0, 10)), "1..3 are gone");
    recent.offer("q", tombstones(1, 3));
    assertEquals(5, recent.size());
    recent.forgetUpTo("nothing-held", 100);
    assertEquals(5, recent.size());
  }

  @Test
  void aRoomWhoseSlotsAreAllIntegratedIsNotKept() {
    RecentSlots recent = new RecentSlots(100);
    for (int r = 0; r < 50; r++) {
      recent.offer("room-" + r, tombstones(1, 2));
    }
    assertEquals(50, recent.rooms());
    for (int r = 0; r < 50; r++) {
      recent.forgetUpTo("room-" + r, r % 2 == 0 ? 2 : 1);
    }
    assertEquals(25, recent.rooms(), "the rooms with seq 2 still held");
    assertEquals(25, recent.size());
    RecentSlots full = new RecentSlots(1);
    full.offer("a", tombstones(1, 1));
    full.offer("b", tombstones(1, 1));
    assertEquals(1, full.rooms(), "a room offered nothing it can hold is not kept");
  }

  @Test
  void offeringAHeldNumberAgainCountsItOnce() {
    RecentSlots recent = new RecentSlots(10);
    recent.offer("r", tombstones(1, 3));
    recent.offer("r", tombstones(2, 4));
    assertEquals(4, recent.size());
    recent.forgetUpTo("r", 4);
    assertEquals(0, recent.size());
  }

  @Test
  void refusesANonPositiveLimit() {
    assertThrows(IllegalArgumentException.class, () -> new RecentSlots(0));
  }
}
