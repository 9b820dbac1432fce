package dev.danmakuledger.server.roomlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The least recently used entry goes once the map holds more than its maximum. */
final class LruMapTest {
  @Test
  void holdsItsMaximumAndDropsTheLeastRecentlyUsed() {
    LruMap<String, Integer> m = new LruMap<>(3);
    m.put("a", 1);
    m.put("b", 2);
    m.put("c", 3);
    assertEquals(3, m.size());
    m.get("a");
    m.put("d", 4);
    assertEquals(Set.of("a", "c", "d"), m.keySet(), "b was the least recently used");
    m.remove("a");
    m.put("e", 5);
    m.put("f", 6);
    assertEquals(Set.of("d", "e", "f"), m.keySet());
    assertThrows(IllegalArgumentException.class, () -> new LruMap<String, Integer>(0));
  }
}
