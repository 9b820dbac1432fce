package dev.danmakuledger.server.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.lettuce.core.cluster.SlotHash;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Announcement shards spread over the slot range; malformed announcement fields are skipped. */
final class RedisRoomBusTest {
  @Test
  void shardKeysFallOneInEachEqualPartOfTheSlots() {
    for (int shards : new int[] {1, 3, 4, 64}) {
      List<String> keys = RedisRoomBus.shardKeys(shards);
      assertEquals(shards, keys.size());
      Set<Integer> parts = new HashSet<>();
      for (int i = 0; i < shards; i++) {
        int part = (int) ((long) SlotHash.getSlot(keys.get(i)) * shards / SlotHash.SLOT_COUNT);
        assertEquals(i, part, keys.get(i));
        parts.add(part);
      }
      assertEquals(shards, parts.size());
    }
  }

  @Test
  void aRangeGivesItsUpperCursorAndAnythingElseNothing() {
    assertEquals(7L, RedisRoomBus.upperCursor("3-7"));
    assertEquals(5L, RedisRoomBus.upperCursor("5-5"));
    for (String bad :
        new String[] {
          null, "", "7", "-7", "3-", "0-4", "7-3", "a-b", "3--7", "1-99999999999999999999", " 1-2"
        }) {
      assertNull(RedisRoomBus.upperCursor(bad), bad);
    }
    assertNull(RedisRoomBus.upperCursor("1-" + "9".repeat(40)));
  }
}
