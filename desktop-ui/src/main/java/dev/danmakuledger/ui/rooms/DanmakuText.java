package dev.danmakuledger.ui.rooms;

import dev.danmakuledger.protocol.wire.Json;
import java.io.IOException;

/**
 * What the live tail shows of a danmaku's text. Bilibili's positioned danmaku (mode 7) carry their
 * text inside a JSON array of placement data ({@code [x, y, "alpha", duration, "text", …]}) and
 * script danmaku (mode 8) carry code (docs/canonical-record.md, the mode field): the tail shows a
 * badge naming the kind and the words a viewer sees, not the data around them.
 *
 * @param badge {@code positioned} or {@code script}, or null for a plain danmaku
 * @param text the text to show
 */
record DanmakuText(String badge, String text) {
  static final int POSITIONED = 7;
  static final int SCRIPT = 8;
  private static final int POSITIONED_TEXT_INDEX = 4;
  private static final int SCRIPT_SHOWN = 80;

  /** The shown form of {@code text} captured with {@code mode}. */
  static DanmakuText of(int mode, String text) {
    if (mode == POSITIONED) {
      return new DanmakuText("positioned", positionedText(text));
    }
    if (mode == SCRIPT) {
      String oneLine = text.strip().replaceAll("\\s+", " ");
      return new DanmakuText(
          "script",
          oneLine.length() <= SCRIPT_SHOWN ? oneLine : oneLine.substring(0, SCRIPT_SHOWN) + "…");
    }
    return new DanmakuText(null, text);
  }

  /**
   * The text member of a positioned danmaku's array, its {@code /n} line breaks shown as spaces
   * (the tail gives every danmaku one line), or the whole text when it holds no such member. Arrays
   * cut short (real files hold some) still show their text member as far as it goes.
   */
  private static String positionedText(String text) {
    String member = textMember(text);
    return member == null ? text : member.replace("/n", " ").strip();
  }

  /** The fifth top-level value of a JSON array when it is a string, read leniently; else null. */
  private static String textMember(String text) {
    String t = text.strip();
    if (!t.startsWith("[")) {
      return null;
    }
    int i = 1;
    for (int commas = 0; commas < POSITIONED_TEXT_INDEX; i++) {
      if (i >= t.length()) {
        return null;
      }
      char c = t.charAt(i);
      if (c == '"') {
        i = endOfString(t, i);
      } else if (c == '[' || c == ']' || c == '{' || c == '}') {
        return null;
      } else if (c == ',') {
        commas++;
      }
    }
    while (i < t.length() && Character.isWhitespace(t.charAt(i))) {
      i++;
    }
    if (i >= t.length() || t.charAt(i) != '"') {
      return null;
    }
    int end = endOfString(t, i);
    String body = t.substring(i + 1, Math.min(end, t.length()));
    try {
      return Json.mapper().readValue('"' + body + '"', String.class);
    } catch (IOException e) {
      return body; // an escape cut in half: shown as it stands
    }
  }

  /** The index of the quote closing the string that opens at {@code open}, or the text's length. */
  private static int endOfString(String t, int open) {
    for (int i = open + 1; i < t.length(); i++) {
      char c = t.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '"') {
        return i;
      }
    }
    return t.length();
  }
}
