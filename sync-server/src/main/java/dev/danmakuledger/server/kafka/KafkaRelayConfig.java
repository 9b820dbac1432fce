package dev.danmakuledger.server.kafka;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How the Kafka relay runs (docs/kafka.md, "Set-up").
 *
 * @param bootstrap the brokers, {@code host:port[,host:port...]}
 * @param topic the topic the confirmed messages go to; the relay's positions go to {@code
 *     <topic>.relay-positions}
 * @param shards how many relay shards the rooms are split into: each is one transactional producer
 *     owned by one instance at a time; the same for every instance and for the topic's lifetime
 * @param lease how long an instance owns a shard without renewing its lease
 * @param poll how often the relay reads every room's last cursor from SQL, for the commits it was
 *     not told of by its own instance (docs/kafka.md, "Lag")
 * @param maxRecordsPerTransaction most messages one Kafka transaction carries
 */
public record KafkaRelayConfig(
    String bootstrap,
    String topic,
    int shards,
    Duration lease,
    Duration poll,
    int maxRecordsPerTransaction) {

  /** The default topic. */
  public static final String DEFAULT_TOPIC = "danmaku.confirmed";

  /** The default number of shards. */
  public static final int DEFAULT_SHARDS = 4;

  /**
   * The relay's producer {@code batch.size}: a transaction hands its producer thousands of messages
   * at once, and batches of up to 128 KiB a partition (about 300 messages) instead of the client's
   * 16 KiB (about 40) make fewer, fuller produce requests (docs/kafka.md, "Exactly once").
   */
  public static final int PRODUCER_BATCH_BYTES = 128 << 10;

  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,200}");
  private static final Pattern BOOTSTRAP =
      Pattern.compile("[A-Za-z0-9.\\[\\]:_-]+:[0-9]{1,5}(,[A-Za-z0-9.\\[\\]:_-]+:[0-9]{1,5})*");

  public KafkaRelayConfig {
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(poll, "poll");
    if (!BOOTSTRAP.matcher(bootstrap).matches()) {
      throw new IllegalArgumentException(
          "bootstrap: got " + bootstrap + ", want host:port[,host:port...]");
    }
    if (!TOPIC.matcher(topic).matches()) {
      throw new IllegalArgumentException("topic: got " + topic + ", want [A-Za-z0-9._-]{1,200}");
    }
    if (shards < 1 || shards > 64) {
      throw new IllegalArgumentException("shards: got " + shards + ", want 1..64");
    }
    if (lease.compareTo(Duration.ofSeconds(1)) < 0 || lease.compareTo(Duration.ofMinutes(5)) > 0) {
      throw new IllegalArgumentException("lease: got " + lease + ", want 1 s..5 min");
    }
    if (poll.compareTo(Duration.ofMillis(1)) < 0 || poll.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new IllegalArgumentException("poll: got " + poll + ", want 1 ms..10 s");
    }
    if (maxRecordsPerTransaction < 1 || maxRecordsPerTransaction > 10_000) {
      throw new IllegalArgumentException(
          "maxRecordsPerTransaction: got " + maxRecordsPerTransaction + ", want 1..10000");
    }
  }

  /** The defaults for {@code bootstrap} and {@code topic}. */
  public static KafkaRelayConfig of(String bootstrap, String topic) {
    return new KafkaRelayConfig(
        bootstrap, topic, DEFAULT_SHARDS, Duration.ofSeconds(10), Duration.ofMillis(100), 5_000);
  }

  /** The compacted topic holding the relay's committed position of each room. */
  public String positionsTopic() {
    return topic + ".relay-positions";
  }

  /** The transactional id of shard {@code shard} (docs/kafka.md, "Exactly once"). */
  public String transactionalId(int shard) {
    return "danmaku-relay." + topic + "." + shard;
  }

  /**
   * The Redis key of shard {@code shard}'s lease, holding the id of the instance that runs it
   * (docs/kafka.md, "Exactly once").
   */
  public String leaseKey(int shard) {
    return "danmaku:kafka-relay:{" + topic + "}:" + shard;
  }

  /** The Redis hash of the shards' lag reports (docs/kafka.md, "Lag"), one field per shard. */
  String lagKey() {
    return "danmaku:kafka-relay:{" + topic + "}:lag";
  }

  /** The shard that relays {@code room}. */
  int shardOf(String room) {
    return Math.floorMod(room.hashCode(), shards);
  }
}
