package dev.danmakuledger.bench.chaos;

/**
 * One {@code message} event of a room stream as a subscriber received it (docs/sync-server.md,
 * "Room streams").
 *
 * @param cursor the event id: the message's confirmation cursor in its room, from 1
 * @param seq the message's room number ({@code data.seq})
 * @param key the message's idempotency key ({@code data.idempotencyKey})
 */
record StreamEvent(long cursor, long seq, String key) {
  StreamEvent {
    if (cursor < 1 || seq < 1) {
      throw new IllegalArgumentException(
          "stream event: got cursor " + cursor + ", seq " + seq + ", want both >= 1");
    }
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("stream event: got no idempotency key, want one");
    }
  }
}
