package dev.danmakuledger.merkle.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal strict JSON (RFC 8259) reader for the few documents {@code tlog} reads (the audit
 * bundle, the server keys). The merkle module depends on nothing but the JDK and BouncyCastle, so
 * it has its own: objects become {@link Map}s (a duplicate name is an error, not "last wins"),
 * arrays {@link List}s, strings {@link String}s, numbers {@link Long}s (only integers: no fraction,
 * exponent or leading zero, since no field read here is anything else), and {@code true}, {@code
 * false}, {@code null}. Nesting is capped so hostile input cannot exhaust the stack.
 */
final class Json {
  /** Deepest nesting of objects and arrays accepted. */
  static final int MAX_DEPTH = 16;

  private final String s;
  private int pos;

  private Json(String s) {
    this.s = s;
  }

  /**
   * Parses one JSON value, with only whitespace around it.
   *
   * @throws IllegalArgumentException saying where and what is wrong
   */
  static Object parse(String text) {
    Json p = new Json(text);
    p.skipSpace();
    Object v = p.value(0);
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("got text after the JSON value");
    }
    return v;
  }

  private Object value(int depth) {
    if (pos >= s.length()) {
      throw error("truncated: want a value");
    }
    char c = s.charAt(pos);
    return switch (c) {
      case '{' -> object(depth + 1);
      case '[' -> array(depth + 1);
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          yield number();
        }
        throw error("got '" + shown(c) + "', want a JSON value");
      }
    };
  }

  private Map<String, Object> object(int depth) {
    checkDepth(depth);
    pos++;
    Map<String, Object> out = new LinkedHashMap<>();
    skipSpace();
    if (peek() == '}') {
      pos++;
      return Collections.unmodifiableMap(out);
    }
    while (true) {
      skipSpace();
      if (peek() != '"') {
        throw error("want a member name in double quotes");
      }
      int at = pos;
      String name = string();
      skipSpace();
      expect(':');
      skipSpace();
      Object v = value(depth);
      if (out.containsKey(name)) {
        pos = at;
        throw error("duplicate member \"" + abbreviate(name) + "\"");
      }
      out.put(name, v);
      skipSpace();
      char c = peek();
      pos++;
      if (c == '}') {
        return Collections.unmodifiableMap(out);
      }
      if (c != ',') {
        pos--;
        throw error("want ',' or '}' in an object");
      }
    }
  }

  private List<Object> array(int depth) {
    checkDepth(depth);
    pos++;
    List<Object> out = new ArrayList<>();
    skipSpace();
    if (peek() == ']') {
      pos++;
      return Collections.unmodifiableList(out);
    }
    while (true) {
      skipSpace();
      out.add(value(depth));
      skipSpace();
      char c = peek();
      pos++;
      if (c == ']') {
        return Collections.unmodifiableList(out);
      }
      if (c != ',') {
        pos--;
        throw error("want ',' or ']' in an array");
      }
    }
  }

  private String string() {
    pos++;
    StringBuilder out = new StringBuilder();
    while (true) {
      if (pos >= s.length()) {
        throw error("truncated string");
      }
      char c = s.charAt(pos++);
      if (c == '"') {
        return out.toString();
      }
      if (c < 0x20) {
        pos--;
        throw error("control character in a string");
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (pos >= s.length()) {
        throw error("truncated escape");
      }
      char e = s.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> out.append(unicodeEscape());
        default -> {
          pos--;
          throw error("unknown escape '\\" + shown(e) + "'");
        }
      }
    }
  }

  private char unicodeEscape() {
    if (pos + 4 > s.length()) {
      throw error("truncated \\u escape");
    }
    int v = 0;
    for (int i = 0; i < 4; i++) {
      int d = Character.digit(s.charAt(pos + i), 16);
      if (d < 0) {
        throw error("want 4 hex digits after \\u");
      }
      v = v << 4 | d;
    }
    pos += 4;
    return (char) v;
  }

  private Long number() {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    int digits = pos;
    while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
      pos++;
    }
    if (pos == digits) {
      throw error("want digits in a number");
    }
    if (s.charAt(digits) == '0' && pos - digits > 1) {
      pos = start;
      throw error("number with a leading zero");
    }
    if (pos < s.length()
        && (s.charAt(pos) == '.' || s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
      throw error("want an integer, got a fraction or exponent");
    }
    try {
      return Long.parseLong(s.substring(start, pos));
    } catch (NumberFormatException e) {
      pos = start;
      throw error("integer out of range");
    }
  }

  private Object literal(String word, Object v) {
    if (!s.startsWith(word, pos)) {
      throw error("want " + word);
    }
    pos += word.length();
    return v;
  }

  private void checkDepth(int depth) {
    if (depth > MAX_DEPTH) {
      throw error("nested deeper than " + MAX_DEPTH);
    }
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("want '" + c + "'");
    }
    pos++;
  }

  private char peek() {
    if (pos >= s.length()) {
      throw error("truncated");
    }
    return s.charAt(pos);
  }

  private void skipSpace() {
    while (pos < s.length()) {
      char c = s.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON at offset " + pos + ": " + what);
  }

  private static String shown(char c) {
    return c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c);
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
