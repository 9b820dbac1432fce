package dev.danmakuledger.server.events;

import java.time.Duration;
import java.util.Objects;

/**
 * The limits of room streams (docs/sync-server.md, "Room streams"): each subscriber may have at
 * most {@code buffer} messages queued before it is cut off with its resume point; every instance
 * re-reads SQL for its subscribed rooms at least every {@code poll}, whatever Redis does; each
 * room's Redis Stream keeps about {@code streamLength} entries.
 *
 * @param buffer messages queued per subscriber, 1..1,000,000
 * @param poll longest wait between two SQL reads of a subscribed room, 10 ms .. 1 min
 * @param streamLength approximate MAXLEN of a room's Redis Stream, 1..10,000,000
 */
public record StreamLimits(int buffer, Duration poll, long streamLength) {
  /** Defaults: 2,000 queued messages, a 1 s SQL poll, 10,000 stream entries. */
  public static final StreamLimits DEFAULTS =
      new StreamLimits(2_000, Duration.ofSeconds(1), 10_000);

  public StreamLimits {
    Objects.requireNonNull(poll, "poll");
    if (buffer < 1 || buffer > 1_000_000) {
      throw new IllegalArgumentException("buffer: got " + buffer + ", want 1..1000000");
    }
    if (poll.toMillis() < 10 || poll.compareTo(Duration.ofMinutes(1)) > 0) {
      throw new IllegalArgumentException("poll: got " + poll + ", want 10ms..1min");
    }
    if (streamLength < 1 || streamLength > 10_000_000) {
      throw new IllegalArgumentException(
          "streamLength: got " + streamLength + ", want 1..10000000");
    }
  }
}
