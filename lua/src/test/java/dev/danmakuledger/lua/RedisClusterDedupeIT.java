package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.testing.RedisClusterFixture;
import dev.danmakuledger.lua.testing.RedisFixture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract suite, unchanged, on a three-master Redis Cluster (docs/architecture.md §7): the
 * bucket's hash tag keeps each call in one slot, and rooms spread over every master.
 */
class RedisClusterDedupeIT extends DedupeScriptsContract {
  private static RedisClusterFixture cluster;
  private static RedisClusterClient client;
  private static StatefulRedisClusterConnection<String, String> connection;
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final AtomicLong COUNTER = new AtomicLong();

  @BeforeAll
  static void startCluster() {
    cluster = RedisClusterFixture.start(Duration.ofSeconds(60));
    List<RedisURI> seeds = new ArrayList<>();
    cluster.uris().forEach(u -> seeds.add(RedisURI.create(u)));
    client = RedisClusterClient.create(seeds);
    connection = client.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void stopCluster() {
    connection.close();
    client.shutdown();
    cluster.close();
  }

  @Override
  DedupeScripts open(RetryPolicy policy, ScriptRegistry registry, String leaseGroup) {
    return DedupeScripts.cluster(cluster.uris(), policy, registry, leaseGroup);
  }

  @Override
  String unique(String base) {
    return base + "-" + RUN + "-" + COUNTER.incrementAndGet();
  }

  @Override
  RedisClusterCommands<String, String> raw() {
    return connection.sync();
  }

  @Test
  void roomsSpreadOverAllThreeMasters() throws Exception {
    List<String> rooms = new ArrayList<>();
    for (int i = 0; i < 48; i++) {
      String room = unique("spread");
      rooms.add(room);
      scripts.seed(room, 0);
      List<AdmitItem> items = new ArrayList<>();
      for (int k = 0; k < 5; k++) {
        items.add(item("key-" + k));
      }
      scripts.admit(room, items, TTL);
    }
    for (String room : rooms) {
      assertEquals(5, scripts.currentSeq(room), room);
    }
    for (int port : cluster.ports()) {
      try (RedisFixture.Raw node = RedisFixture.external("redis://127.0.0.1:" + port).connect()) {
        long keys = node.sync().dbsize();
        assertTrue(
            keys >= 6, "master on port " + port + ": got " + keys + " keys, want buckets of rooms");
      }
    }
  }

  @Test
  void keysOfTwoRoomsInOneCallAreCrossSlotAndNotRetried() {
    String a = unique("room");
    String b = unique("room");
    while (SlotHash.getSlot(RedisKeys.counters(b)) == SlotHash.getSlot(RedisKeys.counters(a))) {
      b = unique("room");
    }
    List<Duration> waits = new ArrayList<>();
    RetryPolicy policy = RetryPolicy.defaults().withPause(waits::add);
    try (RedisOps ops = RedisOps.cluster(cluster.uris())) {
      ScriptCaller caller = new ScriptCaller(ops, policy);
      String[] args = {"1200", "1", RedisKeys.field(b), "1", "k", "aa", "1"};
      String[] keys = {
        RedisKeys.counters(a),
        RedisKeys.window(b, 9),
        RedisKeys.window(b, 8),
        RedisKeys.window(b, 7)
      };
      assertThrows(
          CrossSlotException.class, () -> caller.call(LuaScript.bundled("admit"), keys, args));
    }
    assertTrue(waits.isEmpty(), "CROSSSLOT is a bug, never retried");
  }
}
