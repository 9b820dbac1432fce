package dev.danmakuledger.server.kafka;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the relay reads from SQL (docs/kafka.md, "Exactly once"): the rooms' last confirmation
 * cursors and the CONFIRMED messages after a cursor. Implementations are thread-safe: the relay's
 * shards read in parallel.
 */
public interface RelayFeed {
  /** The last cursor handed out in every room that has one, by room. */
  Map<String, Long> heads();

  /** The last cursor handed out in each of {@code rooms}; a room without one is left out. */
  Map<String, Long> heads(List<String> rooms);

  /**
   * The CONFIRMED messages of {@code room} after {@code afterCursor}, in cursor order, at most
   * {@code limit}: fewer only when no more are committed.
   */
  List<Confirmed> after(String room, long afterCursor, int limit);

  /** The feed of the ledger's SQL database. */
  static RelayFeed of(ConfirmedFeed feed) {
    Objects.requireNonNull(feed, "feed");
    return new RelayFeed() {
      @Override
      public Map<String, Long> heads() {
        return feed.heads();
      }

      @Override
      public Map<String, Long> heads(List<String> rooms) {
        return feed.heads(rooms);
      }

      @Override
      public List<Confirmed> after(String room, long afterCursor, int limit) {
        return feed.after(room, afterCursor, 0, limit);
      }
    };
  }
}
