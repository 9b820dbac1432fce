package dev.danmakuledger.server.storage;

import java.util.Objects;

/**
 * A stored alert (fork, bad signature, outage).
 *
 * @param id database id (0 before insertion)
 * @param type event type (ALERT, DEVICE, ...)
 * @param severity INFO, WARN or CRITICAL
 * @param deviceId device concerned, or null
 * @param room room concerned, or null
 * @param message human-readable text
 * @param dataJson extra data as a JSON object, or null
 * @param at when (epoch ms)
 */
public record AlertRow(
    long id,
    String type,
    String severity,
    String deviceId,
    String room,
    String message,
    String dataJson,
    long at) {
  public AlertRow {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(message, "message");
  }
}
