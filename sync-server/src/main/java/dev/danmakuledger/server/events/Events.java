package dev.danmakuledger.server.events;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.server.storage.AlertRow;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds {@link AdminEvent}s from stored alerts and state changes. */
public final class Events {
  private Events() {}

  public static AdminEvent of(
      String type,
      String severity,
      String deviceId,
      String room,
      String message,
      long atMillis,
      Map<String, Object> data) {
    return new AdminEvent(
        type, severity, deviceId, room, message, Instant.ofEpochMilli(atMillis).toString(), data);
  }

  /** The event form of a stored alert; its id is in {@code data.id}. */
  public static AdminEvent of(AlertRow a, Map<String, Object> data) {
    Map<String, Object> d = new LinkedHashMap<>(data);
    d.put("id", a.id());
    return of(a.type(), a.severity(), a.deviceId(), a.room(), a.message(), a.at(), d);
  }
}
