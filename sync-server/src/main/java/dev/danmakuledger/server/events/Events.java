package dev.danmakuledger.server.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.storage.AlertRow;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds {@link AdminEvent}s from stored alerts and state changes. */
public final class Events {
  private static final Logger log = LoggerFactory.getLogger(Events.class);
  private static final ObjectMapper JSON = Json.mapper();
  private static final TypeReference<Map<String, Object>> DATA = new TypeReference<>() {};

  /**
   * Data member of the trace id of the batch that raised an alert (docs/operations.md, "Tracing"):
   * the span current on the raising thread, so the console shows which trace raised it.
   */
  public static final String TRACE_ID = "traceId";

  private Events() {}

  public static AdminEvent of(
      AdminEvent.Type type,
      Severity severity,
      String deviceId,
      String room,
      String message,
      long atMillis,
      Map<String, Object> data) {
    return new AdminEvent(
        type, severity, deviceId, room, message, Instant.ofEpochMilli(atMillis).toString(), data);
  }

  /**
   * A new ALERT row of {@code kind} for a device; the kind and {@code data} are stored as its data
   * JSON, where the console reads {@code data.kind}.
   */
  public static AlertRow alert(
      AlertKind kind,
      Severity severity,
      String deviceId,
      String message,
      Map<String, Object> data,
      long atMillis) {
    if (kind == null
        || severity == null
        || severity == Severity.UNKNOWN
        || data.containsKey("kind")) {
      throw new IllegalArgumentException(
          "kind: got "
              + kind
              + ", severity "
              + severity
              + " and data "
              + data
              + ", want a kind, a severity and data without a kind");
    }
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("kind", kind.name());
    d.putAll(data);
    SpanContext trace = Span.current().getSpanContext();
    if (trace.isValid() && !d.containsKey(TRACE_ID)) {
      d.put(TRACE_ID, trace.getTraceId());
    }
    String json;
    try {
      json = JSON.writeValueAsString(d);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("data: got " + d + ", want JSON-serializable values", e);
    }
    return new AlertRow(
        0, AdminEvent.Type.ALERT.name(), severity.name(), deviceId, null, message, json, atMillis);
  }

  /**
   * The event form of a stored alert: {@code data} is its stored data JSON (with {@code kind} for
   * alerts raised by {@link #alert}) and its id is in {@code data.id}. Data that is not a JSON
   * object is left out.
   */
  public static AdminEvent of(AlertRow a) {
    Map<String, Object> d = new LinkedHashMap<>();
    if (a.dataJson() != null) {
      try {
        d.putAll(JSON.readValue(a.dataJson(), DATA));
      } catch (JsonProcessingException e) {
        log.warn("alert {} has unreadable data JSON: {}", a.id(), e.getOriginalMessage());
      }
    }
    d.put("id", a.id());
    return new AdminEvent(
        AdminEvent.Type.fromWire(a.type()),
        Severity.fromWire(a.severity()),
        a.deviceId(),
        a.room(),
        a.message(),
        Instant.ofEpochMilli(a.at()).toString(),
        d);
  }
}
