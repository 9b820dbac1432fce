package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class RecentlyUsedTest {
  @Test
  void holdsExactlyItsBoundAndDropsTheLeastRecentlyUsedBeyondIt() {
    RecentlyUsed<String, Integer> map = new RecentlyUsed<>(3);
    map.put("a", 1);
    map.put("b", 2);
    map.put("c", 3);
    assertEquals(List.of("a", "b", "c"), List.copyOf(map.keySet()));
    map.get("a"); // a used last: b is now the eldest
    map.put("d", 4);
    assertEquals(List.of("c", "a", "d"), List.copyOf(map.keySet()));
  }

  @Test
  void aBoundBelowOneIsRefusedAndABoundOfOneKeepsTheLastEntry() {
    assertThrows(IllegalArgumentException.class, () -> new RecentlyUsed<String, Integer>(0));
    RecentlyUsed<String, Integer> one = new RecentlyUsed<>(1);
    one.put("a", 1);
    one.put("b", 2);
    assertEquals(List.of("b"), List.copyOf(one.keySet()));
  }
}
