package dev.danmakuledger.server.events;

import java.time.Duration;
import java.util.Map;

/**
 * The cross-instance wake-up of room streams (docs/architecture.md §7): after a commit confirmed
 * messages, the committing instance announces the cursor ranges of the rooms it touched; every
 * instance reads every announcement through a fixed number of readers and fetches the messages of
 * the rooms it has subscribers for from SQL. An announcement only says "look now": a lost, trimmed
 * or forged one costs latency (the SQL poll catches up), never a message.
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
   * Announces the committed ranges of several rooms at once; called only after the commit.
   *
   * @throws RuntimeException when Redis is unreachable (the caller falls back to SQL)
   */
  void announce(Map<String, Announcement> ranges);

  /** How many readers together carry every announcement: a fixed number, whatever the rooms. */
  int readers();

  /**
   * Opens reader {@code index} (0 ≤ index &lt; {@link #readers()}) of the announcements made from
   * now on; it holds a connection of its own.
   */
  Reader reader(int index);

  /** One reader, used by one thread. */
  interface Reader extends AutoCloseable {
    /**
     * The highest cursor announced per room since the last call, waiting up to {@code block} for
     * one; empty when none came.
     *
     * @throws RuntimeException when Redis is unreachable
     */
    Map<String, Long> next(Duration block);

    @Override
    void close();
  }

  @Override
  void close();
}
