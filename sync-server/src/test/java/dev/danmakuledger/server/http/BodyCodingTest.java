package dev.danmakuledger.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The request content codings (RFC 9110 §8.4) and the strict gzip decoder (RFC 1952). */
class BodyCodingTest {
  static final int CAP = 64 * 1024;

  static byte[] gzip(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream g = new GZIPOutputStream(out)) {
      g.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  static byte[] text(int n) {
    byte[] b = new byte[n];
    Random r = new Random(7);
    for (int i = 0; i < n; i++) {
      b[i] = (byte) ('a' + r.nextInt(4));
    }
    return b;
  }

  static ErrorCode refusal(byte[] gzip) {
    return assertThrows(LedgerException.class, () -> BodyCoding.gunzip(gzip, CAP)).code();
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "GZIP", "x-gzip", " gzip ", "identity, gzip", "gzip,identity"})
  void gzipIsNamed(String header) {
    assertTrue(BodyCoding.isGzip(header));
  }

  @Test
  void noCodingOrIdentityIsTheBodyAsSent() {
    assertFalse(BodyCoding.isGzip(null));
    assertFalse(BodyCoding.isGzip("identity"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"deflate", "br", "zstd", "compress", "gzip, gzip", "gzip, br", "", "a b"})
  void otherCodingsAre415(String header) {
    LedgerException e = assertThrows(LedgerException.class, () -> BodyCoding.isGzip(header));
    assertEquals(ErrorCode.UNSUPPORTED_MEDIA_TYPE, e.code());
    assertTrue(e.getMessage().contains("Accept-Encoding"), e.getMessage());
  }

  @Test
  void roundTrip() {
    byte[] data = "{\"oldSize\":0}".getBytes(StandardCharsets.UTF_8);
    assertArrayEquals(data, BodyCoding.gunzip(gzip(data), CAP));
    assertArrayEquals(new byte[0], BodyCoding.gunzip(gzip(new byte[0]), CAP));
  }

  @Test
  void bombExactlyAtTheCapDecodes() {
    byte[] zeros = new byte[CAP];
    byte[] body = gzip(zeros);
    assertTrue(body.length < CAP / 100, "a bomb is small: " + body.length);
    assertArrayEquals(zeros, BodyCoding.gunzip(body, CAP));
  }

  @Test
  void bombOneByteOverTheCapIs413() {
    LedgerException e =
        assertThrows(LedgerException.class, () -> BodyCoding.gunzip(gzip(new byte[CAP + 1]), CAP));
    assertEquals(ErrorCode.BODY_TOO_LARGE, e.code());
    assertTrue(e.getMessage().contains("send smaller batches"), e.getMessage());
    assertEquals((long) CAP, e.extensions().get("maxBodyBytes"));
  }

  @Test
  void membersOverTheCapTogetherAre413() {
    byte[] half = gzip(new byte[CAP / 2 + 1]);
    assertEquals(ErrorCode.BODY_TOO_LARGE, refusal(concat(half, half)));
  }

  @Test
  void concatenatedMembersAreOneBody() {
    byte[] a = text(1000);
    byte[] b = text(2000);
    assertArrayEquals(concat(a, b), BodyCoding.gunzip(concat(gzip(a), gzip(b)), CAP));
  }

  @Test
  void optionalHeaderFieldsAreSkipped() {
    byte[] data = text(500);
    byte[] plain = gzip(data);
    // FEXTRA, FNAME, FCOMMENT and FHCRC, in the order RFC 1952 §2.3 puts them
    ByteArrayOutputStream h = new ByteArrayOutputStream();
    h.write(0x1f);
    h.write(0x8b);
    h.write(8);
    h.write(0x04 | 0x08 | 0x10 | 0x02);
    h.writeBytes(new byte[6]);
    h.writeBytes(new byte[] {3, 0, 'x', 'y', 'z'});
    h.writeBytes("name\0".getBytes(StandardCharsets.US_ASCII));
    h.writeBytes("comment\0".getBytes(StandardCharsets.US_ASCII));
    CRC32 crc = new CRC32();
    crc.update(h.toByteArray());
    h.write((int) crc.getValue() & 0xff);
    h.write((int) (crc.getValue() >> 8) & 0xff);
    h.writeBytes(Arrays.copyOfRange(plain, 10, plain.length));
    assertArrayEquals(data, BodyCoding.gunzip(h.toByteArray(), CAP));
    byte[] wrongHeaderCrc = h.toByteArray();
    wrongHeaderCrc[10 + 5 + 5 + 8] ^= 1;
    assertEquals(ErrorCode.MALFORMED_REQUEST, refusal(wrongHeaderCrc));
  }

  @Test
  void emptyBody() {
    assertEquals(ErrorCode.MALFORMED_REQUEST, refusal(new byte[0]));
  }

  @Test
  void notGzip() {
    assertEquals(
        ErrorCode.MALFORMED_REQUEST, refusal("{\"oldSize\":0}".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void wrongCompressionMethod() {
    byte[] b = gzip(text(100));
    b[2] = 7;
    assertEquals(ErrorCode.MALFORMED_REQUEST, refusal(b));
  }

  @Test
  void reservedFlagSet() {
    byte[] b = gzip(text(100));
    b[3] = (byte) 0x20;
    assertEquals(ErrorCode.MALFORMED_REQUEST, refusal(b));
  }

  @Test
  void corruptDeflateData() {
    byte[] b = gzip(text(100));
    b[10] = (byte) 0xff; // block type 11, reserved (RFC 1951 §3.2.3)
    assertEquals(ErrorCode.MALFORMED_REQUEST, refusal(b));
  }

  @Test
  void flippedBitInData() {
    byte[] b = gzip(text(5000));
    b[b.length / 2] ^= 0x10;
    assertEquals(ErrorCode.MALFORMED_REQUEST, refusal(b));
  }

  @Test
  void wrongCrc() {
    byte[] b = gzip(text(100));
    b[b.length - 8] ^= 1;
    assertEquals(ErrorCode.MALFORMED_REQUEST, refusal(b));
  }

  @Test
  void wrongLength() {
    byte[] b = gzip(text(100));
    b[b.length - 4] ^= 1;
    assertEquals(ErrorCode.MALFORMED_REQUEST, refusal(b));
  }

  @Test
  void truncatedAnywhere() {
    byte[] b = gzip(text(3000));
    for (int n = 1; n < b.length; n++) {
      assertEquals(
          ErrorCode.MALFORMED_REQUEST, refusal(Arrays.copyOf(b, n)), "cut to " + n + " bytes");
    }
  }

  @Test
  void trailingGarbage() {
    byte[] b = gzip(text(100));
    assertEquals(ErrorCode.MALFORMED_REQUEST, refusal(concat(b, new byte[] {0})));
    assertEquals(
        ErrorCode.MALFORMED_REQUEST,
        refusal(concat(b, "junk".getBytes(StandardCharsets.US_ASCII))));
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
