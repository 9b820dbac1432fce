package dev.danmakuledger.bench.ingest;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;

/** Removes one run's keys from a shared Redis (SCAN MATCH + UNLINK): never FLUSHALL. */
public final class RedisKeys {
  private RedisKeys() {}

  /** Deletes every key matching {@code pattern}; returns how many. */
  public static long deleteMatching(String redisUri, String pattern) {
    RedisClient client = RedisClient.create(redisUri);
    long deleted = 0;
    try (StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8)) {
      ScanCursor cursor = ScanCursor.INITIAL;
      ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
      do {
        KeyScanCursor<String> page = c.sync().scan(cursor, args);
        if (!page.getKeys().isEmpty()) {
          deleted += c.sync().unlink(page.getKeys().toArray(new String[0]));
        }
        cursor = page;
      } while (!cursor.isFinished());
    } finally {
      client.shutdown();
    }
    return deleted;
  }
}
