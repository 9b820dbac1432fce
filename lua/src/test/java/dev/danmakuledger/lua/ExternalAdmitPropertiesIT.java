package dev.danmakuledger.lua;

import dev.danmakuledger.lua.testing.RedisFixture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** The admit properties on the Redis of {@code DANMAKU_TEST_REDIS_URL} (embedded when unset). */
class ExternalAdmitPropertiesIT extends AdmitPropertiesContract {
  private static RedisFixture redis;
  private static DedupeScripts scripts;
  private static ExecutorService callers;

  @BeforeContainer
  static void start() {
    redis = RedisFixture.start();
    scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.defaults());
    callers = Executors.newFixedThreadPool(4);
  }

  @AfterContainer
  static void stop() {
    callers.shutdownNow();
    scripts.close();
    redis.close();
  }

  @Override
  DedupeScripts scripts() {
    return scripts;
  }

  @Override
  String unique(String base) {
    return redis.namespace(base);
  }

  @Override
  ExecutorService callers() {
    return callers;
  }
}
