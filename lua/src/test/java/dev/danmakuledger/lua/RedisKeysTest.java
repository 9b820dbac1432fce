package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.cluster.SlotHash;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class RedisKeysTest {
  @Test
  void protocolValidRoomsKeepTheContractLayout() {
    CRC32 crc = new CRC32();
    crc.update("lobby-1.main_2".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertEquals(crc.getValue() % RedisKeys.BUCKETS, RedisKeys.bucket("lobby-1.main_2"));
    String tag = RedisKeys.counters("lobby-1.main_2").replace(":seq", "");
    assertTrue(tag.matches("\\{b:\\d+\\}"), tag);
    assertEquals(tag + ":w:20424", RedisKeys.window("lobby-1.main_2", 20_424));
    assertEquals("lobby-1.main_2", RedisKeys.field("lobby-1.main_2"));
    assertEquals("lobby-1.main_2:k:1", RedisKeys.entry("lobby-1.main_2", "k:1"));
  }

  @Test
  void fieldBreakersAreEscaped() {
    assertEquals("a%7Db%7B%3A%25", RedisKeys.field("a}b{:%"));
    assertEquals("%E5%BC%BE%0A", RedisKeys.field("弾\n"));
    assertEquals("a%3Ab:c", RedisKeys.entry("a:b", "c"), "a room's colon cannot fake a key's");
  }

  @Test
  void emptyAndOversizedNamesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> RedisKeys.counters(""));
    assertThrows(IllegalArgumentException.class, () -> RedisKeys.counters(null));
    assertThrows(IllegalArgumentException.class, () -> RedisKeys.bucket("r".repeat(257)));
    assertEquals(256, RedisKeys.field("r".repeat(256)).length());
    assertEquals(256 * 9, RedisKeys.field("弾".repeat(256)).length(), "the scripts' name bound");
  }

  @Test
  void theBucketsTagsFallInEqualPartsOfTheSlotRange() {
    Set<Integer> parts = new HashSet<>();
    for (int i = 0; i < 100_000 && parts.size() < RedisKeys.BUCKETS; i++) {
      String room = "room-" + i;
      int part =
          SlotHash.getSlot(RedisKeys.counters(room)) * RedisKeys.BUCKETS / SlotHash.SLOT_COUNT;
      assertEquals(RedisKeys.bucket(room), part, room);
      parts.add(part);
    }
    assertEquals(RedisKeys.BUCKETS, parts.size(), "every bucket is used");
  }

  @Property(seed = "3141592653")
  void everyKeyOfARoomLandsInItsCountersSlot(
      @ForAll @StringLength(min = 1, max = 40) String room, @ForAll long window) {
    assertEquals(
        SlotHash.getSlot(RedisKeys.counters(room)),
        SlotHash.getSlot(RedisKeys.window(room, window)));
  }

  @Property(seed = "2718281828")
  void distinctRoomsNeverShareAFieldOrAnEntry(
      @ForAll @StringLength(min = 1, max = 20) String a,
      @ForAll @StringLength(min = 1, max = 20) String b,
      @ForAll @StringLength(min = 1, max = 20) String key) {
    Assume.that(!a.equals(b));
    assertNotEquals(RedisKeys.field(a), RedisKeys.field(b));
    assertNotEquals(RedisKeys.entry(a, key), RedisKeys.entry(b, key));
    String field = RedisKeys.field(a);
    assertTrue(field.chars().noneMatch(c -> c == '{' || c == '}' || c == ':'), field);
  }
}
