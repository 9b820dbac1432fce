package dev.danmakuledger.server.events;

import java.time.Duration;
import java.util.Optional;

/**
 * The cross-instance wake-up of room streams (docs/architecture.md §7): after a commit confirmed
 * messages of a room, the committing instance announces the cursor range; every instance with
 * subscribers of the room reads the announcements and then fetches the messages from SQL. An
 * announcement only says "look now": a lost, trimmed or forged one costs latency (the SQL poll
 * catches up), never a message.
 */
public interface RoomBus extends AutoCloseable {
  /** A committed range of confirmation cursors of one room. */
  record Announcement(long fromCursor, long toCursor) {
    public Announcement {
      if (fromCursor < 1 || toCursor < fromCursor) {
        throw new IllegalArgumentException(
            "cursors: got " + fromCursor + ".." + toCursor + ", want 1 <= from <= to");
      }
    }
  }

  /**
   * Announces a committed range; called only after the commit.
   *
   * @throws RuntimeException when Redis is unreachable (the caller falls back to SQL)
   */
  void announce(String room, Announcement range);

  /** Opens a blocking reader of {@code room}'s announcements made from now on. */
  Reader reader(String room);

  /** A reader on a connection of its own. */
  interface Reader extends AutoCloseable {
    /**
     * The highest cursor announced since the last call, waiting up to {@code block} for one.
     *
     * @throws RuntimeException when Redis is unreachable
     */
    Optional<Long> next(Duration block);

    @Override
    void close();
  }

  @Override
  void close();
}
