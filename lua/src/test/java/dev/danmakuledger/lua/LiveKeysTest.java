package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LiveKeysTest {
  @Test
  void roomStreamSharesTheRoomsHashTag() {
    assertEquals("{r:live-1}:live", LiveKeys.roomStream("live-1"));
    assertEquals(
        RedisKeys.counter("a}b").substring(0, RedisKeys.counter("a}b").indexOf('}') + 1),
        LiveKeys.roomStream("a}b").substring(0, LiveKeys.roomStream("a}b").indexOf('}') + 1));
  }

  @Test
  void hostileRoomNamesCannotReachAnotherSlot() {
    assertEquals("{r:x%7D%7Br%3Ay}:live", LiveKeys.roomStream("x}{r:y"));
    assertThrows(IllegalArgumentException.class, () -> LiveKeys.roomStream(""));
    assertThrows(IllegalArgumentException.class, () -> LiveKeys.roomStream("x".repeat(257)));
  }
}
