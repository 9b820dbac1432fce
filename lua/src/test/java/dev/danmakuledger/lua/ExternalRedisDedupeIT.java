package dev.danmakuledger.lua;

import dev.danmakuledger.lua.testing.RedisFixture;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract suite on the real Redis named by {@code DANMAKU_TEST_REDIS_URL} (CI sets it); on a
 * machine without it, on an embedded one, so it never skips. Uses unique rooms, never flushes.
 */
class ExternalRedisDedupeIT extends DedupeScriptsContract {
  private static RedisFixture redis;
  private static RedisFixture.Raw raw;

  @BeforeAll
  static void startRedis() {
    redis = RedisFixture.start();
    raw = redis.connect();
  }

  @AfterAll
  static void stopRedis() {
    raw.close();
    redis.close();
  }

  @Override
  DedupeScripts open(RetryPolicy policy, ScriptRegistry registry, String leaseGroup) {
    return DedupeScripts.standalone(redis.uri(), policy, registry, leaseGroup);
  }

  @Override
  String unique(String base) {
    return redis.namespace(base);
  }

  @Override
  RedisClusterCommands<String, String> raw() {
    return raw.sync();
  }
}
