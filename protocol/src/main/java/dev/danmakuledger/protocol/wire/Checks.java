package dev.danmakuledger.protocol.wire;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Preconditions shared by the wire records (here and in {@code wire.admin}); Jackson reports their
 * failures as mapping errors, which servers answer with 400.
 */
public final class Checks {
  private Checks() {}

  public static <T> T required(String name, T value) {
    if (value == null) {
      throw new IllegalArgumentException(name + ": got null, want a value");
    }
    return value;
  }

  public static long nonNegative(String name, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + ": got " + value + ", want >= 0");
    }
    return value;
  }

  public static <T> List<T> list(String name, List<T> value) {
    required(name, value);
    for (int i = 0; i < value.size(); i++) {
      if (value.get(i) == null) {
        throw new IllegalArgumentException(name + "[" + i + "]: got null, want a value");
      }
    }
    return List.copyOf(value);
  }

  public static <V> Map<String, V> map(String name, Map<String, V> value) {
    required(name, value);
    return Collections.unmodifiableMap(new LinkedHashMap<>(value));
  }
}
