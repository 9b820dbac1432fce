package dev.danmakuledger.protocol;

/**
 * Character-class checks of the wire formats (idempotency keys, room log entries): ASCII only, as
 * the formats define them, and without regular expressions, since they run on every record. Each
 * check looks its characters up in one table of classes: random hex digits would otherwise make the
 * digit-or-letter branch a coin toss for the processor's branch predictor on every character.
 */
public final class Ascii {
  private static final byte DIGIT = 1;
  private static final byte LOWER_HEX = 2;
  private static final byte UPPER_HEX = 4;
  private static final byte ID = 8;

  /** The classes of each ASCII character; characters from 128 up are in none. */
  private static final byte[] CLASSES = new byte[128];

  static {
    for (char c = '0'; c <= '9'; c++) {
      CLASSES[c] = DIGIT | LOWER_HEX | UPPER_HEX | ID;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      CLASSES[c] = c <= 'f' ? LOWER_HEX | ID : ID;
    }
    for (char c = 'A'; c <= 'Z'; c++) {
      CLASSES[c] = c <= 'F' ? UPPER_HEX | ID : ID;
    }
    CLASSES['_'] = ID;
    CLASSES['-'] = ID;
  }

  private Ascii() {}

  /** True when every character of {@code s} is {@code 0-9} (true for the empty string). */
  public static boolean allDigits(String s) {
    return all(s, DIGIT);
  }

  /** True when every character of {@code s} is {@code 0-9a-fA-F} (true for the empty string). */
  public static boolean allHex(String s) {
    return all(s, LOWER_HEX | UPPER_HEX);
  }

  /** True when every character of {@code s} is {@code 0-9a-f} (true for the empty string). */
  public static boolean allLowerHex(String s) {
    return all(s, LOWER_HEX);
  }

  /**
   * True when every character of {@code s} is {@code A-Za-z0-9_-}, the characters of device and
   * user ids (true for the empty string).
   */
  public static boolean allIdChars(String s) {
    return all(s, ID);
  }

  /** {@link #allDigits(String)} for the characters {@code from..to-1} of {@code s}. */
  public static boolean allDigits(String s, int from, int to) {
    return all(s, from, to, DIGIT);
  }

  /** {@link #allHex(String)} for the characters {@code from..to-1} of {@code s}. */
  public static boolean allHex(String s, int from, int to) {
    return all(s, from, to, LOWER_HEX | UPPER_HEX);
  }

  /** {@link #allIdChars(String)} for the characters {@code from..to-1} of {@code s}. */
  public static boolean allIdChars(String s, int from, int to) {
    return all(s, from, to, ID);
  }

  /** True when every character of {@code s} is in one of {@code classes}. */
  private static boolean all(String s, int classes) {
    return all(s, 0, s.length(), classes);
  }

  /** True when every character {@code from..to-1} of {@code s} is in one of {@code classes}. */
  private static boolean all(String s, int from, int to, int classes) {
    if (from < 0 || to > s.length() || from > to) {
      throw new IndexOutOfBoundsException("characters " + from + ".." + to + " of " + s.length());
    }
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c >= CLASSES.length || (CLASSES[c] & classes) == 0) {
        return false;
      }
    }
    return true;
  }
}
