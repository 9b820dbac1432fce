package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import java.util.Map;

/**
 * A live event for the console, sent as SSE on {@code GET /admin/events} (event name = type) and
 * listed by {@code GET /admin/alerts}.
 *
 * @param type ALERT, DEVICE, ROOM, MESSAGE or OVERVIEW
 * @param severity INFO, WARN or CRITICAL
 * @param deviceId the device concerned, or null
 * @param room the room concerned, or null
 * @param message a human-readable description
 * @param at ISO-8601 time of the event
 * @param data further details; absent means empty
 */
public record AdminEvent(
    String type,
    String severity,
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
}
