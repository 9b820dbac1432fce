package dev.danmakuledger.lua;

import dev.danmakuledger.lua.testing.RedisFixture;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The contract suite on one standalone Redis server; subclasses say which server. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StandaloneRedisDedupeContract extends DedupeScriptsContract {
  private RedisFixture redis;
  private RedisFixture.Raw raw;

  /** Starts or connects to the server the suite runs on. */
  abstract RedisFixture startRedis();

  @BeforeAll
  void connectRedis() {
    redis = startRedis();
    raw = redis.connect();
  }

  @AfterAll
  void stopRedis() {
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
