package dev.danmakuledger.protocol.record;

import dev.danmakuledger.protocol.Quote;

/**
 * The rules for danmaku text (docs/canonical-record.md, "Text"): 1..300 code points of well-formed
 * UTF-16, none of them a control character, a line or paragraph separator, a bidirectional
 * embedding/override/isolate control, or a Unicode noncharacter. Text is never normalised: the
 * stored code points are exactly those captured.
 */
final class TextRules {
  static final int MAX_CODE_POINTS = 300;

  private TextRules() {}

  static void check(String text) {
    if (text == null) {
      throw new InvalidRecordException("text", "text: got null, want 1 to 300 code points");
    }
    int count = 0;
    for (int i = 0; i < text.length(); ) {
      char c = text.charAt(i);
      int cp;
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        cp = Character.toCodePoint(c, text.charAt(i + 1));
      } else if (Character.isSurrogate(c)) {
        throw new InvalidRecordException(
            "text",
            String.format(
                "text: got a lone surrogate U+%04X at index %d, want well-formed UTF-16",
                (int) c, i));
      } else {
        cp = c;
      }
      String why = forbiddenReason(cp);
      if (why != null) {
        throw new InvalidRecordException(
            "text",
            String.format(
                "text: got %s U+%04X at index %d, want no control or invisible direction characters",
                why, cp, i));
      }
      count++;
      if (count > MAX_CODE_POINTS) {
        throw new InvalidRecordException(
            "text",
            "text: got "
                + text.codePointCount(0, text.length())
                + " code points, want at most "
                + MAX_CODE_POINTS);
      }
      i += Character.charCount(cp);
    }
    if (count == 0) {
      throw new InvalidRecordException(
          "text", "text: got " + Quote.of(text) + ", want 1 to 300 code points");
    }
  }

  /** Returns why a code point is refused, or null if it is allowed. */
  static String forbiddenReason(int cp) {
    if (Character.isISOControl(cp)) {
      return "control character";
    }
    if (cp == 0x2028 || cp == 0x2029) {
      return "line/paragraph separator";
    }
    if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) {
      return "bidirectional control";
    }
    if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) {
      return "noncharacter";
    }
    return null;
  }
}
