package dev.danmakuledger.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link StrictUtf8} accepts and refuses exactly what the JDK's strict decoder does. */
final class StrictUtf8Test {
  /** The reference: the JDK's UTF-8 decoder reporting every malformed or unmappable input. */
  static String reference(byte[] b, int off, int len) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(b, off, len))
        .toString();
  }

  /** Both decoders give the same string, or both refuse. */
  static void agree(byte[] b, int off, int len) {
    String want;
    try {
      want = reference(b, off, len);
    } catch (CharacterCodingException e) {
      assertThrows(
          CharacterCodingException.class,
          () -> StrictUtf8.decode(b, off, len),
          () -> HexFormat.of().formatHex(b, off, off + len));
      return;
    }
    try {
      assertEquals(
          want, StrictUtf8.decode(b, off, len), HexFormat.of().formatHex(b, off, off + len));
    } catch (CharacterCodingException e) {
      throw new AssertionError("refused " + HexFormat.of().formatHex(b, off, off + len), e);
    }
  }

  @Test
  void everySequenceOfOneAndTwoBytes() {
    for (int a = 0; a < 256; a++) {
      agree(new byte[] {(byte) a}, 0, 1);
      for (int b = 0; b < 256; b++) {
        agree(new byte[] {(byte) a, (byte) b}, 0, 2);
      }
    }
  }

  @Test
  void everyThreeAndFourByteLeadWithEdgeContinuations() {
    int[] continuations = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
    for (int lead = 0xC0; lead < 256; lead++) {
      for (int c1 : continuations) {
        for (int c2 : continuations) {
          agree(new byte[] {(byte) lead, (byte) c1, (byte) c2}, 0, 3);
          for (int c3 : continuations) {
            agree(new byte[] {(byte) lead, (byte) c1, (byte) c2, (byte) c3}, 0, 4);
          }
        }
      }
    }
  }

  @Test
  void randomTextWithStrayBytesAtRandomOffsets() {
    Random random = new Random(20261202);
    for (int n = 0; n < 100_000; n++) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int parts = random.nextInt(12);
      for (int p = 0; p < parts; p++) {
        if (random.nextInt(10) == 0) {
          out.write(random.nextInt(256)); // a stray byte: often malformed
        } else {
          int cp;
          do {
            cp =
                switch (random.nextInt(4)) {
                  case 0 -> random.nextInt(0x80);
                  case 1 -> 0x80 + random.nextInt(0x800 - 0x80);
                  case 2 -> 0x800 + random.nextInt(0x10000 - 0x800);
                  default -> 0x10000 + random.nextInt(0x110000 - 0x10000);
                };
          } while (cp >= 0xD800 && cp <= 0xDFFF);
          out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
        }
      }
      byte[] b = out.toByteArray();
      int off = b.length == 0 ? 0 : random.nextInt(b.length + 1);
      agree(b, off, random.nextInt(b.length - off + 1));
    }
  }

  @Test
  void theReplacementCharacterItselfIsWellFormed() throws Exception {
    byte[] b = "a\uFFFDb".getBytes(StandardCharsets.UTF_8);
    assertEquals("a\uFFFDb", StrictUtf8.decode(b, 0, b.length));
  }

  @Test
  void aSliceIsDecodedAloneAndABadByteInsideCjkIsRefused() throws Exception {
    byte[] b = "xx弹幕😀yy".getBytes(StandardCharsets.UTF_8);
    assertEquals("弹幕😀", StrictUtf8.decode(b, 2, b.length - 4));
    byte[] bad = HexFormat.of().parseHex("e5bcb9ffe5b995");
    assertThrows(CharacterCodingException.class, () -> StrictUtf8.decode(bad, 0, bad.length));
    assertThrows(IndexOutOfBoundsException.class, () -> StrictUtf8.decode(b, 3, b.length));
  }
}
