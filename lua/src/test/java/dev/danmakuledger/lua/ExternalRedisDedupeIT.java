package dev.danmakuledger.lua;

import dev.danmakuledger.lua.testing.RedisFixture;

/**
 * The contract suite on the real Redis named by {@code DANMAKU_TEST_REDIS_URL} (CI sets it); on a
 * machine without it, on an embedded one, so it never skips. Uses unique rooms, never flushes.
 */
class ExternalRedisDedupeIT extends StandaloneRedisDedupeContract {
  @Override
  RedisFixture startRedis() {
    return RedisFixture.start();
  }
}
