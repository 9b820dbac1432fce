package dev.danmakuledger.protocol.room;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link MessageEntry#encodeIfValid} writes exactly the bytes of the entry built from the same
 * fields, and refuses exactly the fields the entry refuses.
 */
class MessageEntryBytesTest {
  private static final HexFormat HEX = HexFormat.of();

  @Provide
  Arbitrary<Long> numbers() {
    return Arbitraries.oneOf(
        Arbitraries.longs().between(-3, 1_000),
        Arbitraries.longs().between(0, Long.MAX_VALUE),
        Arbitraries.of(0L, 1L, 9L, 10L, 99L, 100L, Long.MAX_VALUE, Long.MIN_VALUE, -1L));
  }

  @Provide
  Arbitrary<String> ids() {
    return Arbitraries.oneOf(
        Arbitraries.of("kiosk-01", "d", "a".repeat(64)),
        Arbitraries.strings().withChars("ab_-:9 é").ofMinLength(0).ofMaxLength(66));
  }

  @Provide
  Arbitrary<String> keys() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "kiosk-01:alice:1732953600000:00112233445566778899aabbccddeeff",
            "d:u:1732953600000:ABCDEF0123456789",
            "kiosk-01:alice:0732953600000:00112233445566778899aabbccddeeff",
            "kiosk-01:alice:1732953600000:0011",
            "kiosk-01:alice:1732953600000",
            "kiosk-01"),
        Arbitraries.strings().withChars("kiosk-01:a9f").ofMinLength(0).ofMaxLength(60));
  }

  @Provide
  Arbitrary<byte[]> leaves() {
    return Arbitraries.oneOf(
        Arbitraries.bytes().array(byte[].class).ofSize(32),
        Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(40));
  }

  /** The entry's bytes through its constructor, or null when the constructor refuses the fields. */
  static byte[] viaEntry(long seq, long id, String device, long index, byte[] leaf, String key) {
    if (key == null || leaf == null) {
      return null;
    }
    try {
      return new MessageEntry(
              seq, id, device, index, HEX.formatHex(leaf), IdempotencyKey.parse(key))
          .encode();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  @Property(tries = 20_000)
  void theSameBytesOrTheSameRefusal(
      @ForAll("numbers") long seq,
      @ForAll("numbers") long id,
      @ForAll("ids") String device,
      @ForAll("numbers") long index,
      @ForAll("leaves") byte[] leaf,
      @ForAll("keys") String key) {
    byte[] want = viaEntry(seq, id, device, index, leaf, key);
    byte[] got = MessageEntry.encodeIfValid(seq, id, device, index, leaf, key);
    if (want == null) {
      assertNull(got);
    } else {
      assertArrayEquals(want, got, new String(want, StandardCharsets.US_ASCII));
    }
  }

  @Test
  void goldenMessageEntriesAreWrittenByteForByte() throws Exception {
    int messages = 0;
    for (RoomLogEntryTest.Golden g : RoomLogEntryTest.golden()) {
      byte[] bytes = g.text().getBytes(StandardCharsets.US_ASCII);
      if (RoomLogEntry.parse(bytes) instanceof MessageEntry m) {
        messages++;
        assertArrayEquals(
            bytes,
            MessageEntry.encodeIfValid(
                m.seq(),
                m.messageId(),
                m.deviceId(),
                m.deviceIndex(),
                m.deviceLeafHash(),
                m.idempotencyKey().toString()),
            g.name());
        assertEquals(g.text(), m.text(), g.name());
      }
    }
    assertEquals(true, messages > 0, "the golden file has message entries");
  }
}
