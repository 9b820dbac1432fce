package dev.danmakuledger.server.roomlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The least recently used entries go once the map holds more than its entries or its weight. */
final class LruMapTest {
  @Test
  void holdsItsMaximumOfEntriesAndDropsTheLeastRecentlyUsed() {
    LruMap<String, Integer> m = new LruMap<>(3, Long.MAX_VALUE, v -> 0);
    m.put("a", 1);
    m.put("b", 2);
    m.put("c", 3);
    assertEquals(3, m.size(), "at the bound");
    m.get("a");
    m.put("d", 4);
    assertEquals(3, m.size());
    assertNull(m.get("b"), "b was the least recently used");
    assertEquals(1, m.get("a"));
    assertEquals(1, m.remove("a"));
    m.put("e", 5);
    m.put("f", 6);
    assertNull(m.get("c"));
    assertEquals(6, m.get("f"));
  }

  @Test
  void holdsItsMaximumWeightAndDropsTheLeastRecentlyUsedUntilItFits() {
    LruMap<String, Integer> m = new LruMap<>(100, 10, v -> v);
    m.put("a", 4);
    m.put("b", 3);
    m.put("c", 3);
    assertEquals(10, m.weight(), "exactly at the bound: all kept");
    assertEquals(3, m.size());
    m.put("d", 5);
    assertEquals(8, m.weight(), "a (4) and b (3) went to make room for 5");
    assertNull(m.get("a"));
    assertNull(m.get("b"));
    m.put("c", 1);
    assertEquals(6, m.weight(), "a value put again is weighed again");
    assertEquals(5, m.remove("d"));
    assertEquals(1, m.weight());
    m.put("huge", 11);
    assertNull(m.get("huge"), "heavier than the bound alone: not kept");
    assertEquals(0, m.weight(), "and what it pushed out is gone");
  }

  @Test
  void putAllKeepsTheGivenOrderAsRecency() {
    LruMap<String, Integer> m = new LruMap<>(2, Long.MAX_VALUE, v -> 0);
    Map<String, Integer> in = new LinkedHashMap<>();
    in.put("x", 1);
    in.put("y", 2);
    in.put("z", 3);
    m.putAll(in);
    assertNull(m.get("x"));
    assertEquals(2, m.size());
  }

  @Test
  void boundsBelowOneAndNegativeWeightsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new LruMap<String, Integer>(0, 1, v -> 0));
    assertThrows(IllegalArgumentException.class, () -> new LruMap<String, Integer>(1, 0, v -> 0));
    LruMap<String, Integer> m = new LruMap<>(1, 1, v -> -1);
    assertThrows(IllegalArgumentException.class, () -> m.put("a", 1));
  }
}
