package dev.danmakuledger.ui.client;

/**
 * One dispatched server-sent event (WHATWG HTML §9.2 "Server-sent events").
 *
 * @param name the {@code event:} field, "message" when absent
 * @param data the {@code data:} lines joined with '\n'
 * @param id the last {@code id:} seen on the stream, or null
 */
record SseEvent(String name, String data, String id) {
  public SseEvent {
    if (name == null || name.isEmpty() || data == null) {
      throw new IllegalArgumentException(
          "got name=" + name + " data=" + (data == null ? "null" : "set") + ", want both set");
    }
  }
}
