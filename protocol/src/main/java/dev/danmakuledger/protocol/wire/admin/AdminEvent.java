package dev.danmakuledger.protocol.wire.admin;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.protocol.wire.Checks;
import dev.danmakuledger.protocol.wire.WireEnums;
import java.util.Map;

/**
 * A live event for the console, sent as SSE on {@code GET /admin/events} (event name = type) and
 * listed by {@code GET /admin/alerts}.
 *
 * @param type what the event is about; also the SSE event name
 * @param severity how urgent it is
 * @param deviceId the device concerned, or null
 * @param room the room concerned, or null
 * @param message a human-readable description
 * @param at ISO-8601 time of the event
 * @param data further details; absent means empty
 */
public record AdminEvent(
    Type type,
    Severity severity,
    String deviceId,
    String room,
    String message,
    String at,
    Map<String, Object> data) {
  /** Checks that required members are present and counts are not negative. */
  public AdminEvent {
    Checks.required("type", type);
    Checks.required("severity", severity);
    Checks.required("message", message);
    Checks.required("at", at);
    data = Checks.map("data", data == null ? Map.of() : data);
  }

  /** What an event is about; sent by name, also as the SSE event name. */
  public enum Type {
    /** A stored alert ({@code data.kind} says which). */
    ALERT,
    /** A device's state changed. */
    DEVICE,
    /** A room changed. */
    ROOM,
    /** A message's state changed (a review decision). */
    MESSAGE,
    /** The overview figures changed. */
    OVERVIEW,
    /** A type this build does not know, sent by a newer server. */
    UNKNOWN;

    /** The constant named {@code name}; {@link #UNKNOWN} for a name this build does not know. */
    public static Type fromWire(String name) {
      return WireEnums.named(Type.class, name, UNKNOWN);
    }

    @JsonCreator
    static Type fromJson(JsonNode value) {
      return WireEnums.fromJson(Type.class, value, UNKNOWN);
    }
  }

  /** How urgent an event is; stored and sent by name. */
  public enum Severity {
    INFO,
    WARN,
    CRITICAL,
    /** A severity this build does not know, sent by a newer server. */
    UNKNOWN;

    /** The constant named {@code name}; {@link #UNKNOWN} for a name this build does not know. */
    public static Severity fromWire(String name) {
      return WireEnums.named(Severity.class, name, UNKNOWN);
    }

    @JsonCreator
    static Severity fromJson(JsonNode value) {
      return WireEnums.fromJson(Severity.class, value, UNKNOWN);
    }
  }
}
