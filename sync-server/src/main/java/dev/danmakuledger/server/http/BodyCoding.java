package dev.danmakuledger.server.http;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The content coding of a request body (RFC 9110 §8.4): none ({@code identity}) or gzip (RFC 1952),
 * which the server announces with {@code Accept-Encoding: gzip} on its responses (RFC 7694). A gzip
 * body is decoded strictly, every member's header, CRC-32 and length checked, and never past the
 * body limit: a compression bomb is refused with 413 like any body over the limit, as soon as its
 * output passes it.
 */
final class BodyCoding {
  /** The request content codings the server takes, as its {@code Accept-Encoding} names them. */
  static final String ACCEPTED = "gzip";

  private static final int ID1 = 0x1f;
  private static final int ID2 = 0x8b;
  private static final int CM_DEFLATE = 8;
  private static final int FHCRC = 0x02;
  private static final int FEXTRA = 0x04;
  private static final int FNAME = 0x08;
  private static final int FCOMMENT = 0x10;
  private static final int FRESERVED = 0xe0;
  private static final int HEADER_BYTES = 10;
  private static final int TRAILER_BYTES = 8;

  private BodyCoding() {}

  /**
   * Whether a request's {@code Content-Encoding} names gzip: false for none or {@code identity}.
   *
   * @throws LedgerException 415 {@code unsupported-media-type} for any other coding, or gzip
   *     applied more than once
   */
  static boolean isGzip(String contentEncoding) {
    if (contentEncoding == null) {
      return false;
    }
    int gzips = 0;
    for (String coding : contentEncoding.split(",", -1)) {
      String c = coding.strip().toLowerCase(Locale.ROOT);
      if (c.equals("gzip") || c.equals("x-gzip")) {
        gzips++;
      } else if (!c.equals("identity")) {
        throw unsupported("the coding " + Requests.quote(coding.strip()));
      }
    }
    if (gzips > 1) {
      throw unsupported("gzip applied " + gzips + " times");
    }
    return gzips == 1;
  }

  /**
   * The body a gzip body encodes.
   *
   * @param maxBytes the most bytes the decoded body may have
   * @throws LedgerException 400 {@code malformed-request} if the body is not valid gzip, 413 {@code
   *     body-too-large} as soon as it decodes to more than {@code maxBytes}
   */
  static byte[] gunzip(byte[] in, long maxBytes) {
    if (in.length == 0) {
      throw malformed("no gzip member");
    }
    Output out = new Output(maxBytes);
    Inflater inflater = new Inflater(true);
    try {
      int at = 0;
      while (at < in.length) {
        at = member(in, at, inflater, out);
        inflater.reset();
      }
    } finally {
      inflater.end();
    }
    return out.bytes();
  }

  /** Decodes the member at {@code at} into {@code out}; returns where the next one starts. */
  private static int member(byte[] in, int at, Inflater inflater, Output out) {
    int start = at;
    if (in.length - at < HEADER_BYTES) {
      throw malformed("cut short in a member's header");
    }
    if ((in[at] & 0xff) != ID1 || (in[at + 1] & 0xff) != ID2) {
      throw malformed("no gzip magic number where a member starts, at byte " + at);
    }
    if ((in[at + 2] & 0xff) != CM_DEFLATE) {
      throw malformed("compression method " + (in[at + 2] & 0xff) + ", want 8 (deflate)");
    }
    int flags = in[at + 3] & 0xff;
    if ((flags & FRESERVED) != 0) {
      throw malformed("reserved header flags set");
    }
    at += HEADER_BYTES;
    if ((flags & FEXTRA) != 0) {
      need(in, at, 2, "a member's extra field");
      at += 2 + ((in[at] & 0xff) | (in[at + 1] & 0xff) << 8);
      need(in, at, 0, "a member's extra field");
    }
    if ((flags & FNAME) != 0) {
      at = afterZero(in, at, "a member's file name");
    }
    if ((flags & FCOMMENT) != 0) {
      at = afterZero(in, at, "a member's comment");
    }
    if ((flags & FHCRC) != 0) {
      need(in, at, 2, "a member's header CRC");
      CRC32 crc = new CRC32();
      crc.update(in, start, at - start);
      if ((crc.getValue() & 0xffff) != ((in[at] & 0xff) | (in[at + 1] & 0xff) << 8)) {
        throw malformed("a member's header CRC does not match its header");
      }
      at += 2;
    }
    CRC32 crc = new CRC32();
    long length = 0;
    inflater.setInput(in, at, in.length - at);
    byte[] chunk = new byte[64 * 1024];
    try {
      while (!inflater.finished()) {
        int n = inflater.inflate(chunk);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw malformed(
              inflater.needsInput()
                  ? "cut short in a member's compressed data"
                  : "compressed data asks for a preset dictionary");
        }
        out.write(chunk, n);
        crc.update(chunk, 0, n);
        length += n;
      }
    } catch (DataFormatException e) {
      throw malformed("compressed data is not valid deflate (" + e.getMessage() + ")");
    }
    at = in.length - inflater.getRemaining();
    need(in, at, TRAILER_BYTES, "a member's trailer");
    if (crc.getValue() != le32(in, at)) {
      throw malformed("a member's CRC-32 does not match its data");
    }
    if ((length & 0xffffffffL) != le32(in, at + 4)) {
      throw malformed("a member's length does not match its data");
    }
    return at + TRAILER_BYTES;
  }

  private static int afterZero(byte[] in, int at, String what) {
    for (int i = at; i < in.length; i++) {
      if (in[i] == 0) {
        return i + 1;
      }
    }
    throw malformed("cut short in " + what);
  }

  private static void need(byte[] in, int at, int n, String what) {
    if (at > in.length - n) {
      throw malformed("cut short in " + what);
    }
  }

  private static long le32(byte[] in, int at) {
    return (in[at] & 0xffL)
        | (in[at + 1] & 0xffL) << 8
        | (in[at + 2] & 0xffL) << 16
        | (in[at + 3] & 0xffL) << 24;
  }

  private static LedgerException unsupported(String what) {
    return new LedgerException(
        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        "Content-Encoding: got "
            + what
            + ", want gzip once or none (Accept-Encoding names what this server takes); send the"
            + " body uncompressed or gzip-compressed");
  }

  private static LedgerException malformed(String why) {
    return new LedgerException(
        ErrorCode.MALFORMED_REQUEST,
        "body: Content-Encoding is gzip, but the body is not valid gzip (RFC 1952): "
            + why
            + "; send the whole body compressed once, or uncompressed");
  }

  /** The decoded bytes, refused with 413 as soon as they pass the limit. */
  private static final class Output {
    private final long max;
    private byte[] bytes = new byte[64 * 1024];
    private int size;

    Output(long max) {
      this.max = max;
    }

    void write(byte[] chunk, int n) {
      if (size + (long) n > max) {
        throw new LedgerException(
            ErrorCode.BODY_TOO_LARGE,
            "body: its gzip decodes to more than "
                + max
                + " bytes, want at most "
                + max
                + " once decoded; send smaller batches",
            Map.of("maxBodyBytes", max));
      }
      if (size + n > bytes.length) {
        bytes = Arrays.copyOf(bytes, (int) Math.min(max, Math.max(size + n, 2L * bytes.length)));
      }
      System.arraycopy(chunk, 0, bytes, size, n);
      size += n;
    }

    byte[] bytes() {
      return Arrays.copyOf(bytes, size);
    }
  }
}
