package dev.danmakuledger.merkle.checkpoint;

/** Character rules of C2SP signed-note: valid Unicode, no control characters but newline. */
final class Notes {
  private Notes() {}

  static boolean isValidText(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 && c != '\n' || c == 0x7f) {
        return false;
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
