package dev.danmakuledger.merkle.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Typed, strict access to one parsed JSON object of a fixed shape: every member is required, has
 * one type, and members outside the shape are refused, so a document has one reading.
 */
final class JsonObject {
  private final String what;
  private final Map<?, ?> members;

  private JsonObject(String what, Map<?, ?> members) {
    this.what = what;
    this.members = members;
  }

  /**
   * Wraps {@code value} as an object with exactly the members {@code names}.
   *
   * @throws IllegalArgumentException if it is not an object, lacks a member or has another one
   */
  static JsonObject of(String what, Object value, Set<String> names) {
    if (!(value instanceof Map<?, ?> m)) {
      throw new IllegalArgumentException(what + ": want a JSON object");
    }
    for (Object k : m.keySet()) {
      if (!names.contains(k)) {
        throw new IllegalArgumentException(what + ": unknown member \"" + k + "\"");
      }
    }
    for (String n : names) {
      if (!m.containsKey(n)) {
        throw new IllegalArgumentException(what + ": missing member \"" + n + "\"");
      }
    }
    return new JsonObject(what, m);
  }

  String string(String name) {
    if (members.get(name) instanceof String s) {
      return s;
    }
    throw wrongType(name, "a string");
  }

  long nonNegative(String name) {
    if (members.get(name) instanceof Long n && n >= 0) {
      return n;
    }
    throw wrongType(name, "a non-negative integer");
  }

  Object member(String name) {
    return members.get(name);
  }

  /** A list of strings of at most {@code max} elements. */
  List<String> strings(String name, int max) {
    if (!(members.get(name) instanceof List<?> l)) {
      throw wrongType(name, "an array of strings");
    }
    if (l.size() > max) {
      throw new IllegalArgumentException(
          what + "." + name + ": got " + l.size() + " elements, want at most " + max);
    }
    List<String> out = new ArrayList<>(l.size());
    for (Object o : l) {
      if (!(o instanceof String s)) {
        throw wrongType(name, "an array of strings");
      }
      out.add(s);
    }
    return out;
  }

  private IllegalArgumentException wrongType(String name, String want) {
    Object v = members.get(name);
    String got =
        v == null
            ? "null"
            : v instanceof Map
                ? "an object"
                : v instanceof List ? "an array" : v instanceof String ? "a string" : v.toString();
    return new IllegalArgumentException(what + "." + name + ": got " + got + ", want " + want);
  }
}
