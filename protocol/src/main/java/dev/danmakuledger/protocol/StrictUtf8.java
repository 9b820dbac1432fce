package dev.danmakuledger.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes bytes that must be well-formed UTF-8 (RFC 3629), refusing everything else, for the
 * strings of the wire formats, which run on every record. It accepts and refuses exactly what the
 * JDK's UTF-8 decoder does with {@link CodingErrorAction#REPORT}, but without a decoder and a
 * character buffer per string: ASCII, most of the fields, is copied as it is; other text is decoded
 * by {@code new String} and encoded again, and only well-formed input comes back as the same bytes
 * (a malformed sequence decodes to U+FFFD, whose encoding {@code EF BF BD} is well-formed itself,
 * so it never matches the bytes it replaced).
 */
public final class StrictUtf8 {
  private StrictUtf8() {}

  /**
   * Decodes {@code length} bytes of {@code bytes} from {@code offset}.
   *
   * @throws CharacterCodingException if they are not well-formed UTF-8, as the JDK's strict decoder
   *     reports it
   */
  public static String decode(byte[] bytes, int offset, int length)
      throws CharacterCodingException {
    int end = Math.addExact(offset, length);
    if (offset < 0 || length < 0 || end > bytes.length) {
      throw new IndexOutOfBoundsException("bytes " + offset + ".." + end + " of " + bytes.length);
    }
    boolean ascii = true;
    for (int i = offset; i < end; i++) {
      if (bytes[i] < 0) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      return new String(bytes, offset, length, StandardCharsets.US_ASCII);
    }
    String s = new String(bytes, offset, length, StandardCharsets.UTF_8);
    byte[] again = s.getBytes(StandardCharsets.UTF_8);
    if (Arrays.equals(again, 0, again.length, bytes, offset, end)) {
      return s;
    }
    // malformed: let the strict decoder say where and how
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes, offset, length))
        .toString();
  }
}
