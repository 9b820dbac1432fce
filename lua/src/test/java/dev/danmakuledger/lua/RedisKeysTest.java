package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.cluster.SlotHash;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class RedisKeysTest {
  @Test
  void protocolValidRoomsKeepTheContractLayout() {
    assertEquals("{r:lobby-1.main_2}:seq", RedisKeys.counter("lobby-1.main_2"));
    assertEquals("{r:lobby}:w:20424", RedisKeys.window("lobby", 20_424));
    assertEquals("{r:a%7D}:w:-1", RedisKeys.window("a}", -1));
  }

  @Test
  void hashTagBreakersAreEscaped() {
    assertEquals("{r:a%7Db%7B%3A%25}:seq", RedisKeys.counter("a}b{:%"));
    assertEquals("{r:%E5%BC%BE%0A}:seq", RedisKeys.counter("弾\n"));
  }

  @Test
  void emptyAndOversizedNamesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> RedisKeys.counter(""));
    assertThrows(IllegalArgumentException.class, () -> RedisKeys.counter(null));
    assertThrows(IllegalArgumentException.class, () -> RedisKeys.counter("r".repeat(257)));
    assertEquals(256 + 8, RedisKeys.counter("r".repeat(256)).length());
  }

  @Property(seed = "3141592653")
  void everyKeyOfARoomLandsInTheCounterSlot(
      @ForAll @StringLength(min = 1, max = 40) String room, @ForAll long window) {
    assertEquals(
        SlotHash.getSlot(RedisKeys.counter(room)),
        SlotHash.getSlot(RedisKeys.window(room, window)));
  }

  @Property(seed = "2718281828")
  void distinctRoomsNeverShareAKey(
      @ForAll @StringLength(min = 1, max = 20) String a,
      @ForAll @StringLength(min = 1, max = 20) String b,
      @ForAll long window) {
    Assume.that(!a.equals(b));
    assertNotEquals(RedisKeys.counter(a), RedisKeys.counter(b));
    assertNotEquals(RedisKeys.window(a, window), RedisKeys.window(b, window));
    assertNotEquals(RedisKeys.counter(a), RedisKeys.window(b, window));
    String tag = RedisKeys.escape("room", a);
    assertTrue(tag.chars().noneMatch(c -> c == '{' || c == '}' || c == ':'), tag);
  }
}
