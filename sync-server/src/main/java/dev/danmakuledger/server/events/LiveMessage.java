package dev.danmakuledger.server.events;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * One CONFIRMED message as a room stream sends it: its confirmation cursor (the SSE event id) and
 * its wire JSON, rendered and encoded once per instance for every subscriber (docs/sync-server.md,
 * "Room streams").
 */
public final class LiveMessage {
  private final long cursor;
  private final String data;
  private final byte[] event;

  public LiveMessage(long cursor, String data) {
    if (cursor < 1) {
      throw new IllegalArgumentException("cursor: got " + cursor + ", want >= 1");
    }
    if (data == null || data.isEmpty()) {
      throw new IllegalArgumentException("data: got none, want the message's JSON");
    }
    this.cursor = cursor;
    this.data = data;
    this.event = encode("message", Long.toString(cursor), data);
  }

  /** The confirmation cursor: the event id a client resumes after. */
  public long cursor() {
    return cursor;
  }

  /** The message's wire JSON. */
  public String data() {
    return data;
  }

  /** The message as one server-sent event, in UTF-8: the bytes every subscriber is sent. */
  public void writeEvent(OutputStream out) throws IOException {
    out.write(event);
  }

  /**
   * One event of the {@code text/event-stream} format (WHATWG HTML, "Server-sent events"): its id,
   * its name and a {@code data} field per line of {@code data} (lines end at CRLF, LF or CR), ended
   * by an empty line. The data is scanned once for line ends; a regular expression split took most
   * of the CPU of the threads that offer messages to subscribers.
   */
  static byte[] encode(String name, String id, String data) {
    StringBuilder b = new StringBuilder(data.length() + name.length() + id.length() + 24);
    b.append("id: ").append(id).append('\n');
    b.append("event: ").append(name).append('\n');
    int from = 0;
    for (int i = 0; i < data.length(); i++) {
      char c = data.charAt(i);
      if (c == '\r' || c == '\n') {
        b.append("data: ").append(data, from, i).append('\n');
        if (c == '\r' && i + 1 < data.length() && data.charAt(i + 1) == '\n') {
          i++;
        }
        from = i + 1;
      }
    }
    b.append("data: ").append(data, from, data.length()).append('\n');
    b.append('\n');
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "LiveMessage[cursor=" + cursor + ", data=" + data + "]";
  }
}
