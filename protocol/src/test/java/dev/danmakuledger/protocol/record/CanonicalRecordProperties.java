package dev.danmakuledger.protocol.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.protocol.key.IdempotencyKey;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Round trip and hostile-input properties of {@link CanonicalRecord}. */
class CanonicalRecordProperties {

  @Property(seed = "424242", tries = 500)
  void decodeInvertsEncode(@ForAll("records") DanmakuRecord record) {
    byte[] bytes = CanonicalRecord.encode(record);
    DanmakuRecord decoded = CanonicalRecord.decode(bytes);
    assertEquals(record, decoded);
    assertArrayEquals(bytes, CanonicalRecord.encode(decoded));
  }

  @Property(seed = "8086", tries = 500)
  void bytesAtAnIndexEqualThoseOfTheStampedCopy(
      @ForAll("records") DanmakuRecord record,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long index,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long hlc) {
    assertArrayEquals(
        record.withIndexAndHlc(index, hlc).canonicalBytes(), record.canonicalBytesAt(index, hlc));
  }

  @Property(seed = "6962", tries = 500)
  void theRecordEncodedOnceGivesTheSameHashAndBytes(
      @ForAll("records") DanmakuRecord record,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long index,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long hlc) {
    EncodedRecord encoded = record.encoded();
    assertEquals(record.contentHash(), encoded.contentHash());
    assertArrayEquals(record.canonicalBytesAt(index, hlc), encoded.canonicalAt(index, hlc));
  }

  @Property(seed = "777", tries = 1000)
  void randomBytesOnlyEverFailWithInvalidRecord(@ForAll("noise") byte[] bytes) {
    decodeStrictly(bytes);
  }

  @Property(seed = "31337", tries = 1000)
  void mutatedEncodingsAreRejectedOrReencodeIdentically(
      @ForAll("records") DanmakuRecord record,
      @ForAll @IntRange(min = 0, max = 10_000) int position,
      @ForAll @IntRange(min = 1, max = 255) int xor) {
    byte[] bytes = CanonicalRecord.encode(record);
    bytes[position % bytes.length] ^= (byte) xor;
    decodeStrictly(bytes);
  }

  /** Decodes; accepted bytes must be exactly the encoding of what was decoded. */
  private static void decodeStrictly(byte[] bytes) {
    DanmakuRecord decoded;
    try {
      decoded = CanonicalRecord.decode(bytes);
    } catch (InvalidRecordException expected) {
      return;
    }
    assertArrayEquals(bytes, CanonicalRecord.encode(decoded));
  }

  @Provide
  Arbitrary<byte[]> noise() {
    Arbitrary<byte[]> anything = Arbitraries.bytes().array(byte[].class).ofMaxSize(400);
    Arbitrary<byte[]> versioned =
        anything.map(
            b -> {
              if (b.length > 0) {
                b[0] = CanonicalRecord.VERSION_1;
              }
              return b;
            });
    return Arbitraries.oneOf(anything, versioned);
  }

  @Provide
  Arbitrary<DanmakuRecord> records() {
    Arbitrary<String> ids =
        Arbitraries.strings().withChars("aZ09_-").ofMinLength(1).ofMaxLength(64);
    Arbitrary<String> rooms =
        Arbitraries.strings().withChars("aZ09_.-").ofMinLength(1).ofMaxLength(64);
    Arbitrary<String> nonces =
        Arbitraries.strings().withChars("0123456789abcdefABCDEF").ofMinLength(16).ofMaxLength(64);
    Arbitrary<Long> millis = Arbitraries.longs().between(1_000_000_000_000L, 9_999_999_999_999L);
    Arbitrary<String> texts =
        Arbitraries.strings()
            .ofMinLength(1)
            .ofMaxLength(300)
            .withCharRange(' ', '~')
            .withCharRange('\u3000', '\u30FF')
            .withCharRange('\u4E00', '\u4FFF')
            .withChars("\u00AD\uFE0F\u00E9\u0301")
            .map(s -> s.length() > 2 ? s.substring(0, s.length() - 2) + "\uD83D\uDE00" : s);
    Arbitrary<IdempotencyKey> keys =
        Combinators.combine(ids, ids, millis, nonces).as(IdempotencyKey::new);
    Arbitrary<Long> playback = Arbitraries.longs().greaterOrEqual(0).injectNull(0.3);
    return Combinators.combine(
            keys,
            rooms,
            texts,
            playback,
            Arbitraries.integers().between(1, 8),
            Arbitraries.integers().between(0, 0xFFFFFF),
            Arbitraries.integers().between(1, 255),
            Arbitraries.longs().greaterOrEqual(0))
        .as(
            (key, room, text, pb, mode, color, size, hlcIndex) ->
                new DanmakuRecord(
                    key,
                    key.deviceId(),
                    room,
                    key.userId(),
                    text,
                    pb,
                    mode,
                    color,
                    size,
                    hlcIndex,
                    hlcIndex / 3));
  }
}
