package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The strict JSON reader: RFC 8259 values it must read, and the inputs it must refuse. */
class JsonTest {
  @Test
  void readsValues() {
    assertEquals(
        Map.of("a", List.of(1L, -2L, 0L), "b", "x\"\\/\b\f\n\r\t\u00e9\ud83d\ude00", "c", true),
        Json.parse(
            " {\"a\":[1,-2,0],\"b\":\"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\","
                + "\"c\":true}\n"));
    assertEquals(List.of(), Json.parse("[]"));
    assertEquals(Map.of(), Json.parse("{}"));
    assertEquals(Long.MAX_VALUE, Json.parse("9223372036854775807"));
    assertEquals(null, Json.parse("null"));
  }

  @Test
  void refusesMalformedInput() {
    for (String[] c :
        new String[][] {
          {"", "want a value"},
          {"{", "truncated"},
          {"{\"a\":1,}", "want a member name"},
          {"[1,]", "want a JSON value"},
          {"[1 2]", "want ',' or ']'"},
          {"{\"a\":1 \"b\":2}", "want ',' or '}'"},
          {"{\"a\":1,\"a\":2}", "duplicate member \"a\""},
          {"01", "leading zero"},
          {"1.5", "want an integer"},
          {"1e3", "want an integer"},
          {"-", "want digits"},
          {"9223372036854775808", "out of range"},
          {"\"a\nb\"", "control character"},
          {"\"\\x\"", "unknown escape"},
          {"\"\\u12zz\"", "hex digits"},
          {"\"\\u12\"", "truncated \\u escape"},
          {"\"abc", "truncated string"},
          {"tru", "want true"},
          {"{} {}", "text after the JSON value"},
          {"[".repeat(17) + "]".repeat(17), "nested deeper than 16"},
          {"'a'", "want a JSON value"},
        }) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Json.parse(c[0]), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
    }
  }

  @Test
  void deepInputDoesNotOverflowTheStack() {
    String deep = "[".repeat(1_000_000);
    assertThrows(IllegalArgumentException.class, () -> Json.parse(deep));
  }
}
