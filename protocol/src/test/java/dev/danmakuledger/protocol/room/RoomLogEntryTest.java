package dev.danmakuledger.protocol.room;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.id.MessageId;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Room log entry format v1 (docs/room-log.md): golden vectors and strict parsing. */
class RoomLogEntryTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final String KEY = "kiosk-01:alice:1732953600000:00112233445566778899aabbccddeeff";
  private static final String HASH =
      "d26630d1ab0bb64db4cc276aa831eeb68a985ac4f1851d1728a8e4ad0dadcae6";
  private static final String GOOD = "v1 1 M 253671505920020497 kiosk-01 0 " + HASH + " " + KEY;

  record Golden(String name, String text, String leafHash) {}

  static List<Golden> golden() throws IOException {
    List<Golden> out = new ArrayList<>();
    try (InputStream in = RoomLogEntryTest.class.getResourceAsStream("golden-v1.tsv")) {
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.startsWith("#") && !line.isEmpty()) {
          String[] f = line.split("\t");
          out.add(new Golden(f[0], f[1], f[2]));
        }
      }
    }
    return out;
  }

  @Test
  void goldenEntriesParseAndReencodeToTheSameBytesAndLeafHash() throws IOException {
    List<Golden> vectors = golden();
    assertEquals(5, vectors.size());
    for (Golden g : vectors) {
      byte[] bytes = g.text().getBytes(StandardCharsets.US_ASCII);
      RoomLogEntry e = RoomLogEntry.parse(bytes);
      assertArrayEquals(bytes, e.encode(), g.name());
      assertEquals(g.leafHash(), HEX.formatHex(Rfc6962.leafHash(e.encode())), g.name());
      assertEquals(g.name().startsWith("message"), e instanceof MessageEntry, g.name());
    }
  }

  @Test
  void messageEntryOfTheGoldenRecordIsTheGoldenEntry() throws IOException {
    DanmakuRecord record =
        new DanmakuRecord(
            IdempotencyKey.parse(KEY),
            "kiosk-01",
            "live.main",
            "alice",
            "hello, world",
            null,
            1,
            0xFFFFFF,
            25,
            1732953600000L << 16,
            0);
    MessageId id = new MessageId(Instant.parse("2025-12-01T00:00:00Z").toEpochMilli(), 5, 17);
    MessageEntry e = MessageEntry.of(1, id, record);
    assertEquals(golden().get(0).text(), e.text());
    assertArrayEquals(record.leafHash(), e.deviceLeafHash());
    MessageEntry parsed = (MessageEntry) RoomLogEntry.parse(e.encode());
    assertEquals(e, parsed);
    assertEquals(id, MessageId.decode(parsed.messageId()));
  }

  @Test
  void tombstonesCarryKnownOrFutureReasonCodes() {
    TombstoneEntry t = TombstoneEntry.of(7, TombstoneReason.LOST_BY_REDIS);
    assertEquals("v1 7 T lost-by-redis", t.text());
    assertEquals(Optional.of(TombstoneReason.LOST_BY_REDIS), TombstoneReason.fromCode(t.reason()));
    TombstoneEntry future =
        assertInstanceOf(TombstoneEntry.class, RoomLogEntry.parse(ascii("v1 8 T moderated-away")));
    assertEquals(Optional.empty(), TombstoneReason.fromCode(future.reason()));
  }

  static Stream<Arguments> malformed() {
    String k = " " + KEY;
    String h = " " + HASH;
    return Stream.of(
        bad("empty", ""),
        bad("version-only", "v1"),
        bad("unknown-version", "v2 1 T lost-by-redis"),
        bad("seq-zero", "v1 0 T lost-by-redis"),
        bad("seq-leading-zero", "v1 01 T lost-by-redis"),
        bad("seq-plus-sign", "v1 +1 T lost-by-redis"),
        bad("seq-negative", "v1 -1 T lost-by-redis"),
        bad("seq-overflow", "v1 9223372036854775808 T lost-by-redis"),
        bad("seq-twenty-digits", "v1 10000000000000000000 T lost-by-redis"),
        bad("seq-non-ascii-digit", "v1 1\u0663 T lost-by-redis"),
        bad("trailing-space", "v1 1 T lost-by-redis "),
        bad("leading-space", " v1 1 T lost-by-redis"),
        bad("double-space", "v1  1 T lost-by-redis"),
        bad("trailing-newline", "v1 1 T lost-by-redis\n"),
        bad("tab-separator", "v1\t1 T lost-by-redis"),
        bad("unknown-type", "v1 1 X lost-by-redis"),
        bad("lowercase-type", "v1 1 t lost-by-redis"),
        bad("reason-uppercase", "v1 1 T Lost"),
        bad("reason-double-dash", "v1 1 T lost--redis"),
        bad("reason-too-long", "v1 1 T " + "a".repeat(33)),
        bad("tombstone-extra-field", "v1 1 T lost by-redis"),
        bad("message-missing-key", "v1 1 M 1 kiosk-01 0" + h),
        bad("message-extra-field", GOOD + " x"),
        bad("message-id-negative", "v1 1 M -1 kiosk-01 0" + h + k),
        bad("message-id-leading-zero", "v1 1 M 01 kiosk-01 0" + h + k),
        bad("device-index-negative", "v1 1 M 1 kiosk-01 -1" + h + k),
        bad("bad-device-id", "v1 1 M 1 kiosk/01 0" + h + k),
        bad("uppercase-leaf-hash", "v1 1 M 1 kiosk-01 0 " + HASH.toUpperCase() + k),
        bad("short-leaf-hash", "v1 1 M 1 kiosk-01 0 " + HASH.substring(2) + k),
        bad("long-leaf-hash", "v1 1 M 1 kiosk-01 0 " + HASH + "00" + k),
        bad("leaf-hash-not-hex", "v1 1 M 1 kiosk-01 0 " + HASH.substring(1) + "g" + k),
        bad("key-of-another-device", "v1 1 M 1 kiosk-02 0" + h + k),
        bad("malformed-key", "v1 1 M 1 kiosk-01 0" + h + " kiosk-01:alice:17329536:00"),
        bad("non-ascii", "v1 1 T caf\u00e9"),
        bad("nul-byte", "v1 1 T lost\u0000"),
        bad("oversized", "v1 1 T " + "a".repeat(RoomLogEntry.MAX_BYTES)));
  }

  @ParameterizedTest
  @MethodSource("malformed")
  void malformedEntriesAreRejected(byte[] bytes) {
    assertThrows(IllegalArgumentException.class, () -> RoomLogEntry.parse(bytes));
  }

  @Test
  void theGoodBaseOfTheMalformedCasesParses() {
    assertEquals(GOOD, RoomLogEntry.parse(ascii(GOOD)).text());
    assertThrows(IllegalArgumentException.class, () -> RoomLogEntry.parse(null));
  }

  @Test
  void constructorsValidate() {
    IdempotencyKey key = IdempotencyKey.parse(KEY);
    assertThrows(IllegalArgumentException.class, () -> new TombstoneEntry(0, "x"));
    assertThrows(IllegalArgumentException.class, () -> new TombstoneEntry(1, null));
    assertThrows(
        IllegalArgumentException.class, () -> new MessageEntry(1, 1, "kiosk-01", 0, HASH, null));
    assertThrows(
        IllegalArgumentException.class, () -> new MessageEntry(1, -5, "kiosk-01", 0, HASH, key));
    assertThrows(
        IllegalArgumentException.class, () -> new MessageEntry(1, 1, "kiosk-01", 0, "00", key));
  }

  @Test
  void roomLogNamesAndNumbering() {
    assertEquals("danmaku-ledger/room/live.main", RoomLog.origin("live.main"));
    assertEquals("/v1/rooms/live.main/log/", RoomLog.tilesPrefix("live.main"));
    assertEquals(1, RoomLog.seqOfLeaf(0));
    assertEquals(0, RoomLog.leafOfSeq(1));
    assertEquals(Long.MAX_VALUE, RoomLog.seqOfLeaf(Long.MAX_VALUE - 1));
    assertThrows(IllegalArgumentException.class, () -> RoomLog.seqOfLeaf(-1));
    assertThrows(IllegalArgumentException.class, () -> RoomLog.seqOfLeaf(Long.MAX_VALUE));
    assertThrows(IllegalArgumentException.class, () -> RoomLog.leafOfSeq(0));
    assertThrows(IllegalArgumentException.class, () -> RoomLog.origin("a/b"));
    assertThrows(IllegalArgumentException.class, () -> RoomLog.tilesPrefix(""));
  }

  private static Arguments bad(String name, String text) {
    return Arguments.of(Named.of(name, text.getBytes(StandardCharsets.UTF_8)));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
