package dev.danmakuledger.protocol.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DanmakuRecordTest {
  private static final String NONCE = "00112233445566778899aabbccddeeff";

  @Test
  void acceptsTheGoldenRecords() {
    assertEquals(5, Records.GOLDEN.size());
  }

  @Test
  void textOfExactly300CodePointsIsAcceptedAnd301Rejected() {
    String emoji300 = "😀".repeat(300);
    assertEquals(600, emoji300.length());
    Records.record("d", "u", NONCE, emoji300);
    InvalidRecordException e =
        assertThrows(
            InvalidRecordException.class, () -> Records.record("d", "u", NONCE, emoji300 + "a"));
    assertEquals("text", e.field());
    assertEquals("text: got 301 code points, want at most 300", e.getMessage());
  }

  @Test
  void emptyTextIsRejected() {
    assertEquals(
        "text",
        assertThrows(InvalidRecordException.class, () -> Records.record("d", "u", NONCE, ""))
            .field());
    assertEquals(
        "text",
        assertThrows(InvalidRecordException.class, () -> Records.record("d", "u", NONCE, null))
            .field());
  }

  @ParameterizedTest(name = "U+{0}")
  @ValueSource(
      strings = {
        "0000", "0009", "000A", "000D", "001B", "007F", "0080", "0085", "009F", "2028", "2029",
        "202A", "202B", "202C", "202D", "202E", "2066", "2067", "2068", "2069", "FDD0", "FFFE",
        "FFFF", "1FFFE", "10FFFF", "200B", "200E", "200F", "061C", "2060", "FEFF", "E0001"
      })
  void forbiddenCodePointsAreRejected(String hex) {
    String text = "ok" + Character.toString(Integer.parseInt(hex, 16)) + "ok";
    InvalidRecordException e =
        assertThrows(InvalidRecordException.class, () -> Records.record("d", "u", NONCE, text));
    assertEquals("text", e.field());
    assertTrue(e.getMessage().contains("U+" + hex), e.getMessage());
  }

  @ParameterizedTest(name = "U+{0}")
  @ValueSource(strings = {"0020", "00A0", "FE0F", "3000", "1F600"})
  void invisibleButHarmlessCodePointsAreKept(String hex) {
    String text = "a" + Character.toString(Integer.parseInt(hex, 16));
    assertEquals(text, Records.record("d", "u", NONCE, text).text());
  }

  @Test
  void loneSurrogatesAreRejected() {
    for (String text : new String[] {"\uD83D", "a\uDE00", "\uDE00\uD83D", "x\uD83Dy"}) {
      InvalidRecordException e =
          assertThrows(InvalidRecordException.class, () -> Records.record("d", "u", NONCE, text));
      assertTrue(e.getMessage().contains("lone surrogate"), e.getMessage());
    }
  }

  @Test
  void textIsNotNormalised() {
    String decomposed = "e\u0301";
    String composed = "\u00e9";
    DanmakuRecord a = Records.record("d", "u", NONCE, decomposed);
    DanmakuRecord b = Records.record("d", "u", NONCE, composed);
    assertEquals(decomposed, CanonicalRecord.decode(a.canonicalBytes()).text());
    assertNotEquals(a.contentHash(), b.contentHash());
  }

  @Test
  void keyMustBelongToTheDeviceAndUser() {
    IdempotencyKey key = IdempotencyKey.parse("other:u:1732953600000:" + NONCE);
    InvalidRecordException device =
        assertThrows(
            InvalidRecordException.class,
            () -> new DanmakuRecord(key, "d", "r", "u", "t", null, 1, 0, 25, 0, 0));
    assertEquals("key", device.field());
    assertEquals(
        "key deviceId: got \"other\", want the capturing device \"d\"", device.getMessage());
    IdempotencyKey key2 = IdempotencyKey.parse("d:someone:1732953600000:" + NONCE);
    assertEquals(
        "key",
        assertThrows(
                InvalidRecordException.class,
                () -> new DanmakuRecord(key2, "d", "r", "u", "t", null, 1, 0, 25, 0, 0))
            .field());
  }

  @Test
  void eachFieldRuleNamesItsField() {
    expectInvalid(
        "key",
        r ->
            copy(
                null,
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "deviceId",
        r ->
            copy(
                r.key(),
                "kiosk 01",
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "room",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                "",
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "room",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                "a/b",
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "room",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                "r".repeat(65),
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "user",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                "al.ice",
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "playbackMs",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                -1L,
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "mode",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                0,
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "mode",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                9,
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "color",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                -1,
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "color",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                0x1000000,
                r.fontSize(),
                r.hlc(),
                r.index()));
    expectInvalid(
        "fontSize",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                0,
                r.hlc(),
                r.index()));
    expectInvalid(
        "fontSize",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                256,
                r.hlc(),
                r.index()));
    expectInvalid(
        "hlc",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                -1,
                r.index()));
    expectInvalid(
        "index",
        r ->
            copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                -1));
  }

  @Test
  void canonicalBytesAtRejectsANegativeIndexOrClock() {
    DanmakuRecord r = Records.sample();
    assertEquals(
        "index",
        assertThrows(InvalidRecordException.class, () -> r.canonicalBytesAt(-1, 0)).field());
    assertEquals(
        "hlc", assertThrows(InvalidRecordException.class, () -> r.canonicalBytesAt(0, -1)).field());
    assertArrayEquals(r.withIndexAndHlc(5, 9).canonicalBytes(), r.canonicalBytesAt(5, 9));
    EncodedRecord encoded = r.encoded();
    assertEquals(
        "index",
        assertThrows(InvalidRecordException.class, () -> encoded.canonicalAt(-1, 0)).field());
    assertEquals(
        "hlc",
        assertThrows(InvalidRecordException.class, () -> encoded.canonicalAt(0, -1)).field());
  }

  @Test
  void contentHashIgnoresKeyIndexAndHlc() {
    DanmakuRecord a = Records.record("d", "u", NONCE, "same text");
    DanmakuRecord b =
        Records.record("d", "u", "ffffffffffffffff", "same text").withIndexAndHlc(7, 99);
    assertEquals(a.contentHash(), b.contentHash());
    assertNotEquals(
        java.util.HexFormat.of().formatHex(a.leafHash()),
        java.util.HexFormat.of().formatHex(b.leafHash()));
    DanmakuRecord c = Records.record("d", "u", NONCE, "other text");
    assertNotEquals(a.contentHash(), c.contentHash());
    assertTrue(a.contentHash().matches("[0-9a-f]{64}"), a.contentHash());
  }

  @Test
  void contentHashSeesEveryContentField() {
    DanmakuRecord r = Records.GOLDEN.get("cjk");
    String base = r.contentHash();
    assertNotEquals(
        base,
        copy(
                r.key(),
                r.deviceId(),
                "other",
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index())
            .contentHash());
    assertNotEquals(
        base,
        copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                null,
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index())
            .contentHash());
    assertNotEquals(
        base,
        copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                1,
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index())
            .contentHash());
    assertNotEquals(
        base,
        copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                1,
                r.fontSize(),
                r.hlc(),
                r.index())
            .contentHash());
    assertNotEquals(
        base,
        copy(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                r.playbackMs(),
                r.mode(),
                r.color(),
                26,
                r.hlc(),
                r.index())
            .contentHash());
  }

  @Test
  void withIndexAndHlcChangesOnlyThose() {
    DanmakuRecord r = Records.GOLDEN.get("emoji").withIndexAndHlc(41, 42);
    assertEquals(41, r.index());
    assertEquals(42, r.hlc());
    assertEquals(Records.GOLDEN.get("emoji").text(), r.text());
    assertThrows(InvalidRecordException.class, () -> r.withIndexAndHlc(-1, 0));
  }

  private static void expectInvalid(String field, UnaryOperator<DanmakuRecord> change) {
    InvalidRecordException e =
        assertThrows(InvalidRecordException.class, () -> change.apply(Records.sample()));
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("got"), e.getMessage());
    assertTrue(e.getMessage().contains("want"), e.getMessage());
  }

  private static DanmakuRecord copy(
      IdempotencyKey key,
      String deviceId,
      String room,
      String user,
      Long playbackMs,
      int mode,
      int color,
      int fontSize,
      long hlc,
      long index) {
    return new DanmakuRecord(
        key, deviceId, room, user, "text", playbackMs, mode, color, fontSize, hlc, index);
  }
}
