package dev.danmakuledger.server.events;

/**
 * One CONFIRMED message as a room stream sends it: its confirmation cursor (the SSE event id) and
 * its wire JSON, rendered once per instance for every subscriber.
 */
public record LiveMessage(long cursor, String data) {
  public LiveMessage {
    if (cursor < 1) {
      throw new IllegalArgumentException("cursor: got " + cursor + ", want >= 1");
    }
    if (data == null || data.isEmpty()) {
      throw new IllegalArgumentException("data: got none, want the message's JSON");
    }
  }
}
