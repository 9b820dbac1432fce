package dev.danmakuledger.demo.harness;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Simulates a Redis that lost everything (restart without persistence, failover to an empty
 * replica): FLUSHALL. Only ever pointed at a Redis the harness started itself.
 */
public final class RedisWipe {
  private RedisWipe() {}

  /** Runs FLUSHALL on {@code uri}. */
  public static void flushAll(String uri) {
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      c.sync().flushall();
    } finally {
      client.shutdown();
    }
  }
}
