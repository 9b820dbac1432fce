package dev.danmakuledger.merkle.tiles;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** C2SP tlog-tiles entry bundles: uint16 big-endian length-prefixed entries, decoded strictly. */
class EntryBundleTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void encodesLengthPrefixedEntries() {
    byte[] b = EntryBundle.encode(List.of(new byte[0], HEX.parseHex("41"), new byte[300]));
    assertEquals("0000" + "000141" + "012c", HEX.formatHex(b, 0, 7));
    assertEquals(2 + 3 + 302, b.length);
    List<byte[]> back = EntryBundle.decode(b, 3);
    assertArrayEquals(new byte[300], back.get(2));
  }

  @Test
  void largestEntryRoundTripsAndLargerIsRefused() {
    byte[] max = new byte[EntryBundle.MAX_ENTRY_BYTES];
    max[max.length - 1] = 9;
    assertArrayEquals(max, EntryBundle.decode(EntryBundle.encode(List.of(max)), 1).get(0));
    assertThrows(
        IllegalArgumentException.class,
        () -> EntryBundle.encode(List.of(new byte[EntryBundle.MAX_ENTRY_BYTES + 1])));
  }

  @Test
  void moreThan256EntriesAreRefused() {
    List<byte[]> many = new ArrayList<>(Collections.nCopies(257, new byte[0]));
    assertThrows(IllegalArgumentException.class, () -> EntryBundle.encode(many));
    assertThrows(IllegalArgumentException.class, () -> EntryBundle.decode(new byte[0], 257));
  }

  @Test
  void truncatedLengthPrefix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> EntryBundle.decode(HEX.parseHex("000141" + "00"), 2));
    assertTrue(e.getMessage().contains("truncated length prefix"), e.getMessage());
  }

  @Test
  void truncatedEntry() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> EntryBundle.decode(HEX.parseHex("000341"), 1));
    assertTrue(e.getMessage().contains("wants 3 bytes, got 1"), e.getMessage());
  }

  @Test
  void trailingBytesAfterTheLastEntry() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> EntryBundle.decode(HEX.parseHex("00014100"), 1));
    assertTrue(e.getMessage().contains("after the 1 entries"), e.getMessage());
  }

  @Test
  void fewerEntriesThanTheWidth() {
    assertThrows(
        IllegalArgumentException.class, () -> EntryBundle.decode(HEX.parseHex("000141"), 2));
    assertEquals(0, EntryBundle.decode(new byte[0], 0).size());
  }
}
