package dev.danmakuledger.lua;

import dev.danmakuledger.lua.testing.RedisFixture;

/** The contract suite on an embedded redis-server (the server's embedded default). */
class EmbeddedRedisDedupeIT extends StandaloneRedisDedupeContract {
  @Override
  RedisFixture startRedis() {
    return RedisFixture.embedded();
  }
}
