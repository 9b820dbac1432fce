package dev.danmakuledger.server.events;

import dev.danmakuledger.lua.LiveKeys;
import dev.danmakuledger.server.redis.RedisLinks;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XReadArgs;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RoomBus} on Redis Streams: one stream per room under the room's hash tag ({@link
 * LiveKeys#roomStream}), written with {@code XADD … MAXLEN ~ n} and read with {@code XREAD BLOCK}
 * on a dedicated connection per followed room. Entries carry {@code from}/{@code to} cursors and
 * the publish time; malformed entries are skipped (Redis can be wrong; SQL is the authority).
 */
public final class RedisRoomBus implements RoomBus {
  private static final Logger log = LoggerFactory.getLogger(RedisRoomBus.class);
  private static final long READ_COUNT = 1_000;

  private final RedisLinks links;
  private final long streamLength;

  public RedisRoomBus(RedisLinks links, long streamLength) {
    this.links = links;
    this.streamLength = streamLength;
  }

  @Override
  public void announce(String room, Announcement range) {
    links
        .shared()
        .xadd(
            LiveKeys.roomStream(room),
            XAddArgs.Builder.maxlen(streamLength).approximateTrimming(),
            Map.of(
                "from", Long.toString(range.fromCursor()),
                "to", Long.toString(range.toCursor()),
                "at", Long.toString(System.currentTimeMillis())));
  }

  @Override
  public Reader reader(String room) {
    String key = LiveKeys.roomStream(room);
    RedisLinks.Link link = links.dedicated();
    String start;
    try {
      List<StreamMessage<String, String>> tail =
          link.commands().xrevrange(key, Range.create("-", "+"), io.lettuce.core.Limit.from(1));
      start = tail.isEmpty() ? "0-0" : tail.get(0).getId();
    } catch (RuntimeException e) {
      link.close();
      throw e;
    }
    return new StreamReader(link, key, start);
  }

  @Override
  public void close() {
    // the links belong to the server wiring
  }

  /** Reads one room's stream from the last entry id seen. */
  private static final class StreamReader implements Reader {
    private final RedisLinks.Link link;
    private final String key;
    private String lastId;

    StreamReader(RedisLinks.Link link, String key, String lastId) {
      this.link = link;
      this.key = key;
      this.lastId = lastId;
    }

    @Override
    @SuppressWarnings("unchecked") // Lettuce takes the stream offsets as generic varargs
    public Optional<Long> next(Duration block) {
      List<StreamMessage<String, String>> entries =
          link.commands()
              .xread(
                  XReadArgs.Builder.block(block).count(READ_COUNT),
                  XReadArgs.StreamOffset.from(key, lastId));
      Long highest = null;
      for (StreamMessage<String, String> e : entries) {
        lastId = e.getId();
        Long to = cursor(e.getBody().get("to"));
        if (to == null) {
          log.debug("stream {}: skipping malformed entry {}", key, e.getId());
        } else if (highest == null || to > highest) {
          highest = to;
        }
      }
      return Optional.ofNullable(highest);
    }

    private static Long cursor(String s) {
      if (s == null || s.isEmpty() || s.length() > 19) {
        return null;
      }
      try {
        long v = Long.parseLong(s);
        return v >= 1 ? v : null;
      } catch (NumberFormatException e) {
        return null;
      }
    }

    @Override
    public void close() {
      link.close();
    }
  }
}
