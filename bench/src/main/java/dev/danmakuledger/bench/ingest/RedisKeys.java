package dev.danmakuledger.bench.ingest;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;

/**
 * Removes one run's keys and hash fields from a shared Redis (SCAN MATCH + UNLINK, HSCAN MATCH +
 * HDEL): never FLUSHALL.
 */
public final class RedisKeys {
  /**
   * The names of the buckets' counters and dedupe windows, {@link dev.danmakuledger.lua.RedisKeys}.
   */
  private static final Pattern BUCKET_HASH = Pattern.compile("\\{b:[0-9]+\\}:(seq|w:-?[0-9]+)");

  private RedisKeys() {}

  /** Deletes every key matching {@code pattern}; returns how many. */
  public static long deleteMatching(String redisUri, String pattern) {
    return withRedis(redisUri, redis -> unlinkMatching(redis, pattern));
  }

  /**
   * Deletes what Redis holds of the rooms whose names start with {@code roomPrefix}: their own keys
   * {@code {r:<room>}:...}, and their counters and dedupe entries, which are fields named after the
   * room in the hashes its bucket shares with other rooms ({@code {b:<n>}:seq}, {@code
   * {b:<n>}:w:<window>}). Returns how many keys and fields.
   *
   * @param roomPrefix characters of {@code [A-Za-z0-9_.-]} only, which the room keys and fields
   *     hold unescaped and a glob pattern matches literally
   */
  public static long deleteRooms(String redisUri, String roomPrefix) {
    if (!dev.danmakuledger.lua.RedisKeys.field(roomPrefix).equals(roomPrefix)) {
      throw new IllegalArgumentException(
          "room prefix: got " + roomPrefix + ", want [A-Za-z0-9_.-] characters only");
    }
    return withRedis(
        redisUri,
        redis -> {
          long deleted = unlinkMatching(redis, "{r:" + roomPrefix + "*");
          ScanArgs fields = ScanArgs.Builder.matches(roomPrefix + "*").limit(1000);
          for (String key : bucketHashes(redis)) {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
              MapScanCursor<String, String> page = redis.hscan(key, cursor, fields);
              if (!page.getMap().isEmpty()) {
                deleted += redis.hdel(key, page.getMap().keySet().toArray(new String[0]));
              }
              cursor = page;
            } while (!cursor.isFinished());
          }
          return deleted;
        });
  }

  private static long withRedis(String redisUri, ToLongFunction<RedisCommands<String, String>> f) {
    RedisClient client = RedisClient.create(redisUri);
    try (StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8)) {
      return f.applyAsLong(c.sync());
    } finally {
      client.shutdown();
    }
  }

  /** UNLINKs the keys matching {@code pattern} a SCAN page at a time; returns how many. */
  private static long unlinkMatching(RedisCommands<String, String> redis, String pattern) {
    long deleted = 0;
    ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = redis.scan(cursor, args);
      if (!page.getKeys().isEmpty()) {
        deleted += redis.unlink(page.getKeys().toArray(new String[0]));
      }
      cursor = page;
    } while (!cursor.isFinished());
    return deleted;
  }

  /** The buckets' hashes: a SCAN MATCH of "{b:*}:*" (braces are not glob-special), then a check. */
  private static List<String> bucketHashes(RedisCommands<String, String> redis) {
    List<String> keys = new ArrayList<>();
    ScanArgs args = ScanArgs.Builder.matches("{b:*}:*").limit(1000);
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = redis.scan(cursor, args);
      page.getKeys().stream().filter(k -> BUCKET_HASH.matcher(k).matches()).forEach(keys::add);
      cursor = page;
    } while (!cursor.isFinished());
    return keys;
  }
}
