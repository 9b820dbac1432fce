package dev.danmakuledger.ui.client;

import java.util.Optional;

/**
 * Line-by-line parser of a {@code text/event-stream} body (WHATWG HTML §9.2.6 "Interpreting an
 * event stream"): {@code event}, {@code data}, {@code id} and comment lines; a blank line
 * dispatches. An event whose data grows beyond {@code maxDataChars} is dropped whole rather than
 * buffered without bound. Not thread-safe; one parser per connection.
 */
final class SseParser {
  private final int maxDataChars;
  private final StringBuilder data = new StringBuilder();
  private String name;
  private String lastId;
  private boolean hasData;
  private boolean oversized;
  private long droppedOversized;

  SseParser(int maxDataChars) {
    if (maxDataChars <= 0) {
      throw new IllegalArgumentException("got maxDataChars=" + maxDataChars + ", want > 0");
    }
    this.maxDataChars = maxDataChars;
  }

  /** Feeds one line without its terminator; returns the event a blank line completes, if any. */
  Optional<SseEvent> line(String line) {
    if (line.isEmpty()) {
      return dispatch();
    }
    if (line.charAt(0) == ':') {
      return Optional.empty();
    }
    int colon = line.indexOf(':');
    String field = colon < 0 ? line : line.substring(0, colon);
    String value = colon < 0 ? "" : line.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    switch (field) {
      case "event" -> name = value;
      case "data" -> appendData(value);
      case "id" -> {
        if (value.indexOf('\0') < 0) {
          lastId = value;
        }
      }
      default -> {
        // "retry" and unknown fields: the console has its own reconnect policy.
      }
    }
    return Optional.empty();
  }

  /** Events dropped so far because their data exceeded the limit. */
  long droppedOversized() {
    return droppedOversized;
  }

  private void appendData(String value) {
    if (oversized) {
      return;
    }
    if (data.length() + value.length() + 1 > maxDataChars) {
      oversized = true;
      data.setLength(0);
      return;
    }
    if (hasData) {
      data.append('\n');
    }
    data.append(value);
    hasData = true;
  }

  private Optional<SseEvent> dispatch() {
    Optional<SseEvent> event = Optional.empty();
    if (oversized) {
      droppedOversized++;
    } else if (hasData) {
      event =
          Optional.of(
              new SseEvent(
                  name == null || name.isEmpty() ? "message" : name, data.toString(), lastId));
    }
    data.setLength(0);
    name = null;
    hasData = false;
    oversized = false;
    return event;
  }
}
