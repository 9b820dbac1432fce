package dev.danmakuledger.protocol.wire;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads the statuses and event types of the wire records leniently: a newer server may send a value
 * this build does not know, and a client that failed on it would show nothing at all. Each such
 * enum has an {@code UNKNOWN} constant and a {@code @JsonCreator} that calls {@link #fromJson}.
 * Writing is unchanged: a constant is sent by its name.
 */
public final class WireEnums {
  private WireEnums() {}

  /**
   * Returns the constant of {@code type} named {@code name}, or {@code unknown} for any other name
   * (and for null).
   */
  public static <E extends Enum<E>> E named(Class<E> type, String name, E unknown) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(name)) {
        return e;
      }
    }
    return unknown;
  }

  /**
   * Returns the constant of {@code type} named by the JSON string {@code value}, or {@code unknown}
   * for a string that names none.
   *
   * @throws IllegalArgumentException if {@code value} is not a JSON string (a number, a boolean, an
   *     object or an array is malformed, not merely unknown)
   */
  public static <E extends Enum<E>> E fromJson(Class<E> type, JsonNode value, E unknown) {
    if (value == null || !value.isTextual()) {
      throw new IllegalArgumentException(
          type.getSimpleName()
              + ": got "
              + (value == null ? "nothing" : value.getNodeType())
              + ", want a string");
    }
    return named(type, value.textValue(), unknown);
  }
}
