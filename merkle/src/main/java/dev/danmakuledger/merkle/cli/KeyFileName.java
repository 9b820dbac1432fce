package dev.danmakuledger.merkle.cli;

import java.nio.charset.StandardCharsets;

/**
 * Derives the file name {@code tlog keygen} writes a private key to from its C2SP signed-note key
 * name. Key names may contain '/' and other characters a file name cannot (C2SP signed-note only
 * forbids spaces and '+'), e.g. {@code danmaku-ledger/room/r1}. The name's UTF-8 bytes are kept
 * when they are ASCII letters, digits, '-', '_' or '.', and percent-encoded ({@code %2F},
 * upper-case hex) otherwise; '%' itself and a leading '.' are encoded too. The mapping is
 * injective, so two key names never share a file, and reversible by percent-decoding; plain names
 * such as {@code example.org-log} map to themselves.
 */
final class KeyFileName {
  /** Longest derived name, leaving room for the ".key" suffix within a 255-byte file name. */
  static final int MAX_STEM = 250;

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private KeyFileName() {}

  /**
   * Returns {@code <stem>.key} for {@code keyName}.
   *
   * @throws IllegalArgumentException if the encoded stem exceeds {@link #MAX_STEM} characters
   */
  static String of(String keyName) {
    byte[] utf8 = keyName.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(utf8.length + 4);
    for (int i = 0; i < utf8.length; i++) {
      int b = utf8[i] & 0xff;
      if (isSafe(b) && !(i == 0 && b == '.')) {
        out.append((char) b);
      } else {
        out.append('%').append(HEX[b >>> 4]).append(HEX[b & 0xf]);
      }
    }
    if (out.length() > MAX_STEM) {
      throw new IllegalArgumentException(
          "key name: file name for it would have "
              + out.length()
              + " characters, want at most "
              + MAX_STEM);
    }
    return out.append(".key").toString();
  }

  private static boolean isSafe(int b) {
    return b >= 'a' && b <= 'z'
        || b >= 'A' && b <= 'Z'
        || b >= '0' && b <= '9'
        || b == '-'
        || b == '_'
        || b == '.';
  }
}
