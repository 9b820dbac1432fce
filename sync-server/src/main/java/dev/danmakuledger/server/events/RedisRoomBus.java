package dev.danmakuledger.server.events;

import dev.danmakuledger.lua.RedisKeys;
import dev.danmakuledger.server.redis.RedisLinks;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XReadArgs;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RoomBus} on Redis Streams (docs/architecture.md §7): a fixed set of {@code shards}
 * announcement streams, each under its own hash tag, chosen so the shards spread evenly over the
 * slot range (on a Redis Cluster with evenly split slots, over the nodes). A commit's announcement
 * is one {@code XADD … MAXLEN ~ n} of one entry holding every room it touched ({@code room:<name>}
 * → {@code from-to}) to the next shard in turn; each shard is read with {@code XREAD BLOCK} by one
 * reader on a connection of its own. So an instance holds {@code shards} blocking connections and
 * {@code shards} reader threads whatever the number of rooms it follows. Malformed fields are
 * skipped (Redis can be wrong; SQL is the authority).
 */
public final class RedisRoomBus implements RoomBus {
  private static final Logger log = LoggerFactory.getLogger(RedisRoomBus.class);
  private static final long READ_COUNT = 200;
  static final String ROOM_FIELD = "room:";

  private final RedisLinks links;
  private final long streamLength;
  private final List<String> keys;
  private final AtomicInteger next = new AtomicInteger();

  /**
   * @param shards announcement streams, 1..64: each costs every instance one reader thread and one
   *     blocking Redis connection
   * @param streamLength approximate MAXLEN of each announcement stream
   */
  public RedisRoomBus(RedisLinks links, int shards, long streamLength) {
    if (shards < 1 || shards > 64) {
      throw new IllegalArgumentException("shards: got " + shards + ", want 1..64");
    }
    this.links = links;
    this.streamLength = streamLength;
    this.keys = shardKeys(shards);
  }

  /**
   * The shards' keys, {@code {dl:live:n}}: shard i's tag is the first whose slot lies in the i-th
   * of {@code shards} equal parts of the 16,384 slots ({@link RedisKeys#spreadTags}).
   */
  static List<String> shardKeys(int shards) {
    return RedisKeys.spreadTags("dl:live", shards);
  }

  @Override
  public void announce(Map<String, Announcement> ranges) {
    if (ranges.isEmpty()) {
      return;
    }
    Map<String, String> body = new LinkedHashMap<>();
    body.put("at", Long.toString(System.currentTimeMillis()));
    ranges.forEach((room, r) -> body.put(ROOM_FIELD + room, r.fromCursor() + "-" + r.toCursor()));
    String key = keys.get(Math.floorMod(next.getAndIncrement(), keys.size()));
    links.shared().xadd(key, XAddArgs.Builder.maxlen(streamLength).approximateTrimming(), body);
  }

  @Override
  public int readers() {
    return keys.size();
  }

  @Override
  public Reader reader(int index) {
    String key = keys.get(index);
    RedisLinks.Link link = links.dedicated();
    String start;
    try {
      List<StreamMessage<String, String>> tail =
          link.commands().xrevrange(key, Range.create("-", "+"), Limit.from(1));
      start = tail.isEmpty() ? "0-0" : tail.get(0).getId();
    } catch (RuntimeException e) {
      link.close();
      throw e;
    }
    return new ShardReader(link, key, start);
  }

  @Override
  public void close() {
    // the links belong to the server wiring
  }

  /** The {@code to} of {@code from-to}, or null when malformed. */
  static Long upperCursor(String s) {
    if (s == null || s.length() > 40) {
      return null;
    }
    int dash = s.indexOf('-');
    Long from = dash < 1 ? null : cursor(s.substring(0, dash));
    Long to = dash < 1 ? null : cursor(s.substring(dash + 1));
    return from == null || to == null || to < from ? null : to;
  }

  private static Long cursor(String s) {
    if (s.isEmpty() || s.length() > 19) {
      return null;
    }
    try {
      long v = Long.parseLong(s);
      return v >= 1 ? v : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Reads one shard's stream from the last entry id seen. */
  private static final class ShardReader implements Reader {
    private final RedisLinks.Link link;
    private final String key;
    private String lastId;

    ShardReader(RedisLinks.Link link, String key, String lastId) {
      this.link = link;
      this.key = key;
      this.lastId = lastId;
    }

    @Override
    @SuppressWarnings("unchecked") // Lettuce takes the stream offsets as generic varargs
    public Map<String, Long> next(Duration block) {
      List<StreamMessage<String, String>> entries =
          link.commands()
              .xread(
                  XReadArgs.Builder.block(block).count(READ_COUNT),
                  XReadArgs.StreamOffset.from(key, lastId));
      Map<String, Long> highest = new HashMap<>();
      for (StreamMessage<String, String> e : entries) {
        lastId = e.getId();
        for (Map.Entry<String, String> f : e.getBody().entrySet()) {
          if (!f.getKey().startsWith(ROOM_FIELD)) {
            continue;
          }
          String room = f.getKey().substring(ROOM_FIELD.length());
          Long to = upperCursor(f.getValue());
          if (to == null || room.isEmpty()) {
            log.debug("stream {}: skipping malformed field of entry {}", key, e.getId());
          } else {
            highest.merge(room, to, Math::max);
          }
        }
      }
      return highest;
    }

    @Override
    public void close() {
      link.close();
    }
  }
}
