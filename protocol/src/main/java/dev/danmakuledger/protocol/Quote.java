package dev.danmakuledger.protocol;

/** Renders untrusted strings for error messages: bounded length, controls escaped. */
public final class Quote {
  private static final int MAX_SHOWN = 40;

  private Quote() {}

  /**
   * Returns {@code value} in double quotes, at most {@value #MAX_SHOWN} code points, with control,
   * format and surrogate characters written as {@code \}{@code uXXXX}, or {@code null}.
   */
  public static String of(String value) {
    if (value == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder("\"");
    int shown = 0;
    for (int i = 0; i < value.length() && shown < MAX_SHOWN; shown++) {
      int cp = value.codePointAt(i);
      int type = Character.getType(cp);
      if (cp == '"' || cp == '\\') {
        out.append('\\').appendCodePoint(cp);
      } else if (Character.isISOControl(cp)
          || type == Character.FORMAT
          || type == Character.SURROGATE
          || type == Character.LINE_SEPARATOR
          || type == Character.PARAGRAPH_SEPARATOR) {
        out.append(String.format("\\u%04X", cp));
      } else {
        out.appendCodePoint(cp);
      }
      i += Character.charCount(cp);
    }
    out.append('"');
    if (value.codePointCount(0, value.length()) > MAX_SHOWN) {
      out.append("...");
    }
    return out.toString();
  }
}
