package dev.danmakuledger.protocol.record;

import dev.danmakuledger.protocol.Quote;

/**
 * The rules for danmaku text (docs/canonical-record.md, "Text"): 1..300 code points of well-formed
 * UTF-16, none of them a control character, a line or paragraph separator, an invisible character
 * that changes how text reads without being seen (zero-width spaces and joiners, word joiner, byte
 * order mark, bidirectional marks, embeddings, overrides and isolates, tag characters), or a
 * Unicode noncharacter. Text is never normalised: the stored code points are exactly those
 * captured.
 *
 * <p>Two invisible characters carry meaning in real text and are allowed where they do: U+200D
 * (zero-width joiner) between emoji (👨‍👩‍👧) or after a letter or combining mark when a letter
 * follows (Indic conjuncts), U+200C (zero-width non-joiner) after a letter or mark when a letter
 * follows (Persian, Indic). Tag characters are allowed only as the tag sequence of a subdivision
 * flag (U+1F3F4, tags, U+E007F cancel tag; Unicode TS #51 §2.8). Moderation removes every format
 * character before matching, so an allowed joiner never hides a banned word or link.
 */
final class TextRules {
  static final int MAX_CODE_POINTS = 300;

  private static final int ZWNJ = 0x200C;
  private static final int ZWJ = 0x200D;
  private static final int BLACK_FLAG = 0x1F3F4;
  private static final int CANCEL_TAG = 0xE007F;

  private TextRules() {}

  static void check(String text) {
    if (text == null) {
      throw new InvalidRecordException("text", "text: got null, want 1 to 300 code points");
    }
    int[] cps = codePoints(text);
    if (cps.length == 0) {
      throw new InvalidRecordException(
          "text", "text: got " + Quote.of(text) + ", want 1 to 300 code points");
    }
    if (cps.length > MAX_CODE_POINTS) {
      throw new InvalidRecordException(
          "text", "text: got " + cps.length + " code points, want at most " + MAX_CODE_POINTS);
    }
    int index = 0;
    for (int i = 0; i < cps.length; i++) {
      String why = forbiddenReason(cps, i);
      if (why != null) {
        throw new InvalidRecordException(
            "text",
            String.format(
                "text: got %s U+%04X at index %d, want no control or invisible characters",
                why, cps[i], index));
      }
      index += Character.charCount(cps[i]);
    }
  }

  /** The code points of well-formed UTF-16 {@code text}, in two plain passes (no stream). */
  private static int[] codePoints(String text) {
    int count = 0;
    for (int i = 0; i < text.length(); i++, count++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new InvalidRecordException(
            "text",
            String.format(
                "text: got a lone surrogate U+%04X at index %d, want well-formed UTF-16",
                (int) c, i));
      }
    }
    int[] out = new int[count];
    for (int i = 0, n = 0; n < count; n++) {
      int cp = text.codePointAt(i);
      out[n] = cp;
      i += Character.charCount(cp);
    }
    return out;
  }

  /** Returns why the code point at {@code i} is refused in this text, or null if it is allowed. */
  static String forbiddenReason(int[] cps, int i) {
    int cp = cps[i];
    String why = forbiddenReason(cp);
    if (why != null) {
      return why;
    }
    if (cp == ZWJ && !joinsEmoji(cps, i) && !joinsLetters(cps, i)) {
      return "zero-width joiner outside an emoji sequence or a word";
    }
    if (cp == ZWNJ && !joinsLetters(cps, i)) {
      return "zero-width non-joiner outside a word";
    }
    if (isTag(cp) && !inFlagTagSequence(cps, i)) {
      return "tag character outside a subdivision flag";
    }
    return null;
  }

  /** Returns why a code point is refused wherever it stands, or null if it may be allowed. */
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
    if (cp == 0x200E || cp == 0x200F || cp == 0x061C) {
      return "bidirectional mark";
    }
    if (cp == 0x200B || cp == 0x2060) {
      return "zero-width space";
    }
    if (cp == 0xFEFF) {
      return "byte order mark";
    }
    if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) {
      return "noncharacter";
    }
    return null;
  }

  private static boolean joinsEmoji(int[] cps, int i) {
    if (i == 0 || i + 1 >= cps.length) {
      return false;
    }
    int before = cps[i - 1];
    boolean emojiBefore = isPictographic(before) || before == 0xFE0F || isEmojiModifier(before);
    return emojiBefore && isPictographic(cps[i + 1]);
  }

  private static boolean joinsLetters(int[] cps, int i) {
    if (i == 0 || i + 1 >= cps.length) {
      return false;
    }
    int before = cps[i - 1];
    boolean wordBefore = Character.isLetter(before) || isMark(before);
    return wordBefore && Character.isLetter(cps[i + 1]);
  }

  private static boolean isMark(int cp) {
    int type = Character.getType(cp);
    return type == Character.NON_SPACING_MARK
        || type == Character.COMBINING_SPACING_MARK
        || type == Character.ENCLOSING_MARK;
  }

  private static boolean isEmojiModifier(int cp) {
    return cp >= 0x1F3FB && cp <= 0x1F3FF;
  }

  /**
   * An approximation of Unicode's Extended_Pictographic property (Java 17 has no emoji properties):
   * the emoji blocks and the older symbols emoji sequences are built from.
   */
  static boolean isPictographic(int cp) {
    return (cp >= 0x1F000 && cp <= 0x1FAFF)
        || (cp >= 0x2600 && cp <= 0x27BF)
        || (cp >= 0x2300 && cp <= 0x23FF)
        || (cp >= 0x2B00 && cp <= 0x2BFF)
        || (cp >= 0x2190 && cp <= 0x21FF)
        || (cp >= 0x25A0 && cp <= 0x25FF)
        || cp == 0x00A9
        || cp == 0x00AE
        || cp == 0x203C
        || cp == 0x2049
        || cp == 0x2122
        || cp == 0x2139
        || cp == 0x24C2
        || cp == 0x2934
        || cp == 0x2935
        || cp == 0x3030
        || cp == 0x303D
        || cp == 0x3297
        || cp == 0x3299;
  }

  private static boolean isTag(int cp) {
    return cp >= 0xE0000 && cp <= 0xE007F;
  }

  /**
   * True when the tag at {@code i} belongs to {@code U+1F3F4 tag(a-z, 0-9)+ U+E007F}: the only tag
   * sequences in Unicode emoji (flags of England, Scotland, Wales).
   */
  private static boolean inFlagTagSequence(int[] cps, int i) {
    int start = i;
    while (start > 0 && isTag(cps[start - 1]) && cps[start - 1] != CANCEL_TAG) {
      start--;
    }
    if (start == 0 || cps[start - 1] != BLACK_FLAG) {
      return false;
    }
    int end = start;
    while (end < cps.length && isTag(cps[end]) && cps[end] != CANCEL_TAG) {
      int letter = cps[end] - 0xE0000;
      if (!((letter >= 'a' && letter <= 'z') || (letter >= '0' && letter <= '9'))) {
        return false;
      }
      end++;
    }
    return end > start && end < cps.length && cps[end] == CANCEL_TAG && i <= end;
  }
}
