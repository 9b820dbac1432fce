package dev.danmakuledger.protocol;

/**
 * Character-class checks of the wire formats (idempotency keys, room log entries): ASCII only, as
 * the formats define them, and without regular expressions, since they run on every record.
 */
public final class Ascii {
  private Ascii() {}

  /** True when every character of {@code s} is {@code 0-9} (true for the empty string). */
  public static boolean allDigits(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** True when every character of {@code s} is {@code 0-9a-fA-F} (true for the empty string). */
  public static boolean allHex(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
        return false;
      }
    }
    return true;
  }

  /** True when every character of {@code s} is {@code 0-9a-f} (true for the empty string). */
  public static boolean allLowerHex(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }
}
