package dev.danmakuledger.lua;

import dev.danmakuledger.lua.testing.RedisClusterFixture;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** The admit properties, unchanged, on a three-master Redis Cluster. */
class ClusterAdmitPropertiesIT extends AdmitPropertiesContract {
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final AtomicLong COUNTER = new AtomicLong();
  private static RedisClusterFixture cluster;
  private static DedupeScripts scripts;
  private static ExecutorService callers;

  @BeforeContainer
  static void start() {
    cluster = RedisClusterFixture.start(Duration.ofSeconds(60));
    scripts = DedupeScripts.cluster(cluster.uris(), RetryPolicy.defaults());
    callers = Executors.newFixedThreadPool(4);
  }

  @AfterContainer
  static void stop() {
    callers.shutdownNow();
    scripts.close();
    cluster.close();
  }

  @Override
  DedupeScripts scripts() {
    return scripts;
  }

  @Override
  String unique(String base) {
    return base + "-" + RUN + "-" + COUNTER.incrementAndGet();
  }

  @Override
  ExecutorService callers() {
    return callers;
  }
}
