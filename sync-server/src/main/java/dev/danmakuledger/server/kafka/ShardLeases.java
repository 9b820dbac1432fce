package dev.danmakuledger.server.kafka;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.function.Supplier;

/**
 * Which instance runs which relay shard (docs/kafka.md, "Shards and fencing"): a Redis key per
 * shard holding the owner's id with an expiry, taken when free and kept by renewing it. The lease
 * only decides who tries; Kafka's transactional-id epoch is what fences a former owner that still
 * runs.
 */
final class ShardLeases {
  private static final String TAKE_OR_KEEP =
      "local v = redis.call('GET', KEYS[1]) "
          + "if v == ARGV[1] or not v then "
          + "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end "
          + "return 0";
  private static final String RELEASE =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end "
          + "return 0";

  private final Supplier<RedisClusterCommands<String, String>> redis;
  private final KafkaRelayConfig config;
  private final String owner;

  ShardLeases(
      Supplier<RedisClusterCommands<String, String>> redis, KafkaRelayConfig config, String owner) {
    this.redis = redis;
    this.config = config;
    this.owner = owner;
  }

  /** Takes shard {@code shard} when free or keeps it when this owner has it; true when it has. */
  boolean takeOrKeep(int shard) {
    Long r =
        redis
            .get()
            .eval(
                TAKE_OR_KEEP,
                ScriptOutputType.INTEGER,
                new String[] {config.leaseKey(shard)},
                owner,
                Long.toString(config.lease().toMillis()));
    return r != null && r == 1L;
  }

  /** Gives shard {@code shard} up if this owner has it. */
  void release(int shard) {
    redis
        .get()
        .eval(RELEASE, ScriptOutputType.INTEGER, new String[] {config.leaseKey(shard)}, owner);
  }
}
