package dev.danmakuledger.protocol.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class CanonicalRecordTest {
  private static final HexFormat HEX = HexFormat.of();

  record Golden(String name, byte[] canonical, String leafHash, String contentHash) {}

  static List<Golden> golden() throws IOException {
    List<Golden> out = new ArrayList<>();
    try (InputStream in = CanonicalRecordTest.class.getResourceAsStream("golden-v1.txt")) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (String line : text.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split(" ");
        out.add(new Golden(f[0], HEX.parseHex(f[1]), f[2], f[3]));
      }
    }
    return out;
  }

  @Test
  void encodingMatchesGoldenVectors() throws IOException {
    List<Golden> vectors = golden();
    assertEquals(Records.GOLDEN.keySet().size(), vectors.size());
    for (Golden g : vectors) {
      DanmakuRecord record = Records.GOLDEN.get(g.name());
      assertEquals(HEX.formatHex(g.canonical()), HEX.formatHex(record.canonicalBytes()), g.name());
      assertEquals(g.leafHash(), HEX.formatHex(record.leafHash()), g.name());
      assertEquals(g.contentHash(), record.contentHash(), g.name());
      assertEquals(record, CanonicalRecord.decode(g.canonical()), g.name());
    }
  }

  @Test
  void asciiVectorIsTheDocumentedLayout() {
    byte[] b = Records.GOLDEN.get("ascii").canonicalBytes();
    ByteBuffer buf = ByteBuffer.wrap(b);
    assertEquals(0x01, buf.get());
    assertEquals("kiosk-01:alice:1732953600000:00112233445566778899aabbccddeeff", string(buf));
    assertEquals("kiosk-01", string(buf));
    assertEquals("live.main", string(buf));
    assertEquals("alice", string(buf));
    assertEquals("hello, world", string(buf));
    assertEquals(0, buf.get());
    assertEquals(1, buf.get());
    assertEquals(0xFFFFFF, buf.getInt());
    assertEquals(25, buf.get());
    assertEquals(1732953600000L << 16, buf.getLong());
    assertEquals(0L, buf.getLong());
    assertEquals(0, buf.remaining());
  }

  @Test
  void longestRecordFitsTheDeclaredBound() {
    assertEquals(
        CanonicalRecord.MAX_V1_LENGTH, Records.GOLDEN.get("limits").canonicalBytes().length);
  }

  @Test
  void smallestRecordHasTheDocumentedLength() {
    DanmakuRecord smallest =
        new DanmakuRecord(
            dev.danmakuledger.protocol.key.IdempotencyKey.parse(
                "a:b:1000000000000:0123456789abcdef"),
            "a",
            "r",
            "b",
            "x",
            null,
            1,
            0,
            1,
            0,
            0);
    assertEquals(82, smallest.canonicalBytes().length);
  }

  @Test
  void everyTruncationIsRejected() {
    byte[] full = Records.GOLDEN.get("cjk").canonicalBytes();
    for (int n = 0; n < full.length; n++) {
      byte[] prefix = java.util.Arrays.copyOf(full, n);
      InvalidRecordException e =
          assertThrows(
              InvalidRecordException.class, () -> CanonicalRecord.decode(prefix), "n=" + n);
      assertEquals("encoding", e.field(), e.getMessage());
    }
  }

  @Test
  void trailingByteIsRejected() {
    byte[] full = Records.sample().canonicalBytes();
    byte[] longer = java.util.Arrays.copyOf(full, full.length + 1);
    InvalidRecordException e =
        assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(longer));
    assertTrue(e.getMessage().contains("1 trailing bytes"), e.getMessage());
  }

  @Test
  void unknownVersionIsRejected() {
    byte[] b = Records.sample().canonicalBytes();
    b[0] = 0x03;
    InvalidRecordException e =
        assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(b));
    assertEquals("canonical record version: got 0x03, want 0x01 or 0x02", e.getMessage());
  }

  @Test
  void hostileLengthPrefixIsRejectedWithoutAllocating() {
    byte[] b = Records.sample().canonicalBytes();
    b[1] = (byte) 0xFF;
    b[2] = (byte) 0xFF;
    b[3] = (byte) 0xFF;
    b[4] = (byte) 0xFF;
    InvalidRecordException e =
        assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(b));
    assertEquals("key length: got 4294967295 bytes, want at most 208", e.getMessage());
  }

  @Test
  void oversizedInputIsRejectedBeforeParsing() {
    byte[] b = new byte[CanonicalRecord.MAX_ENCODED_LENGTH + 1];
    b[0] = 0x01;
    assertEquals(
        "encoding",
        assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(b)).field());
  }

  @Test
  void nullIsRejected() {
    assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(null));
  }

  @Test
  void invalidUtf8InTextIsRejected() {
    String[] bad = {
      "c0ae", // overlong '.'
      "eda080", // UTF-8 encoded lone high surrogate (CESU-8)
      "80", // lone continuation byte
      "e4b8", // truncated 3-byte sequence
      "f4908080", // beyond U+10FFFF
      "ff",
    };
    for (String hex : bad) {
      byte[] b = withText(HEX.parseHex(hex));
      InvalidRecordException e =
          assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(b), hex);
      assertEquals("text", e.field(), hex);
    }
  }

  @Test
  void presenceByteOtherThanZeroOrOneIsRejected() {
    byte[] b = Records.sample().canonicalBytes();
    int presence = b.length - 8 - 8 - 1 - 4 - 1 - 1;
    assertEquals(0, b[presence]);
    b[presence] = 2;
    assertEquals(
        "playbackMs",
        assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(b)).field());
  }

  @Test
  void fieldRulesApplyOnDecode() {
    byte[] b = Records.sample().canonicalBytes();
    int mode = b.length - 8 - 8 - 1 - 4 - 1;
    b[mode] = 9;
    assertEquals(
        "mode",
        assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(b)).field());
  }

  @Test
  void textWithForbiddenCharacterIsRejectedOnDecode() {
    byte[] b = withText("a\u202Eb".getBytes(StandardCharsets.UTF_8));
    assertEquals(
        "text",
        assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(b)).field());
  }

  @Test
  void keyThatDisagreesWithDeviceIsRejectedOnDecode() {
    byte[] b = Records.sample().canonicalBytes();
    // "kiosk-01" in the key becomes "kiosk-02"; the separate deviceId field stays "kiosk-01".
    b[1 + 4 + 7] = '2';
    InvalidRecordException e =
        assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(b));
    assertEquals("key", e.field(), e.getMessage());
  }

  @Test
  void malformedKeyIsReportedAsKeyField() {
    byte[] b = Records.sample().canonicalBytes();
    b[1 + 4 + 8] = ';';
    InvalidRecordException e =
        assertThrows(InvalidRecordException.class, () -> CanonicalRecord.decode(b));
    assertEquals("key", e.field(), e.getMessage());
  }

  /** Re-encodes the sample record with {@code text} as raw bytes in place of its text. */
  private static byte[] withText(byte[] text) {
    DanmakuRecord r = Records.sample();
    ByteBuffer buf = ByteBuffer.allocate(1024);
    buf.put((byte) 1);
    putString(buf, r.key().toString().getBytes(StandardCharsets.UTF_8));
    putString(buf, r.deviceId().getBytes(StandardCharsets.UTF_8));
    putString(buf, r.room().getBytes(StandardCharsets.UTF_8));
    putString(buf, r.user().getBytes(StandardCharsets.UTF_8));
    putString(buf, text);
    buf.put((byte) 0).put((byte) r.mode()).putInt(r.color()).put((byte) r.fontSize());
    buf.putLong(r.hlc()).putLong(r.index());
    return java.util.Arrays.copyOf(buf.array(), buf.position());
  }

  private static void putString(ByteBuffer buf, byte[] bytes) {
    buf.putInt(bytes.length).put(bytes);
  }

  private static String string(ByteBuffer buf) {
    byte[] b = new byte[buf.getInt()];
    buf.get(b);
    return new String(b, StandardCharsets.UTF_8);
  }
}
