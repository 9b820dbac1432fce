package dev.danmakuledger.server.kafka;

import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One relay shard while this instance owns it (docs/kafka.md, "Exactly once"): a transactional
 * producer under the shard's transactional id, and the position of each of the shard's rooms as
 * last committed. Opening it fences every earlier producer of the shard (aborting its open
 * transaction) and then reads the positions back with {@code read_committed}; each {@link #begin}
 * and {@link #commit} is one transaction holding the messages and the rooms' new positions
 * together. After any failure the shard is closed and opened again: the positions read then are
 * exactly what the topic holds.
 */
final class ShardRelay implements AutoCloseable {
  private static final Duration POSITIONS_WITHIN = Duration.ofSeconds(30);

  /** The producer's first retry backoff (then exponential up to 1 s): see {@link #openShard}. */
  static final int RETRY_BACKOFF_MS = 10;

  /** Most messages of one room that one transaction takes, so that rooms take turns. */
  static final int PER_ROOM = 2_500;

  private final KafkaRelayConfig config;
  private final int shard;
  private final String instance;
  private final Map<String, Long> positions = new HashMap<>();
  private KafkaProducer<String, String> producer;

  ShardRelay(KafkaRelayConfig config, int shard, String instance) {
    this.config = config;
    this.shard = shard;
    this.instance = instance;
  }

  int shard() {
    return shard;
  }

  boolean open() {
    return producer != null;
  }

  /** The committed position of {@code room}: the cursor of the last message in the topic, or 0. */
  long position(String room) {
    return positions.getOrDefault(room, 0L);
  }

  /** Creates the producer, fences earlier ones of the shard, reads the committed positions. */
  void openShard() {
    close();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrap());
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "danmaku-relay-" + instance + "-" + shard);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.transactionalId(shard));
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, KafkaRelayConfig.PRODUCER_BATCH_BYTES);
    // a transaction's first send meets CONCURRENT_TRANSACTIONS until the brokers finished the last
    // one's markers (docs/kafka.md, "Lag"): retry soon, backing off exponentially to the default
    // max
    p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, RETRY_BACKOFF_MS);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000);
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 15_000);
    KafkaProducer<String, String> created =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    try {
      created.initTransactions();
      Map<String, Long> read = readPositions();
      positions.clear();
      positions.putAll(read);
      producer = created;
    } catch (RuntimeException e) {
      created.close(Duration.ZERO);
      throw e;
    }
  }

  private Map<String, Long> readPositions() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    TopicPartition tp = new TopicPartition(config.positionsTopic(), shard);
    Map<String, Long> out = new HashMap<>();
    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + POSITIONS_WITHIN.toNanos();
      while (c.position(tp) < end) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException(
              "reading the positions of shard " + shard + ": not at offset " + end + " in time");
        }
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          if (r.key() != null && r.value() != null) {
            out.merge(r.key(), Long.parseLong(r.value()), Math::max);
          }
        }
      }
    }
    return out;
  }

  /** The committed positions of the shard's rooms (a copy). */
  Map<String, Long> positions() {
    return new HashMap<>(positions);
  }

  /**
   * Reads what SQL holds past {@code from} (positions by room; a room not in it from its committed
   * position) for the rooms in {@code heads} (this shard's rooms with their last cursors, each
   * known to be committed before this read), at most {@code budget} messages and {@value #PER_ROOM}
   * of one room, the rooms in turn from {@code turn}; safe on any thread (it reads SQL only).
   */
  Batch read(
      RelayFeed feed,
      Map<String, Long> heads,
      Map<String, Long> from,
      int budget,
      int turn,
      RelayPhases phases) {
    List<String> rooms = new ArrayList<>();
    for (Map.Entry<String, Long> e : heads.entrySet()) {
      if (e.getValue() > from.getOrDefault(e.getKey(), 0L)) {
        rooms.add(e.getKey());
      }
    }
    Collections.sort(rooms);
    if (!rooms.isEmpty()) {
      Collections.rotate(rooms, -Math.floorMod(turn, rooms.size()));
    }
    List<ProducerRecord<String, String>> records = new ArrayList<>();
    Map<String, Long> moved = new HashMap<>();
    boolean more = false;
    long encoding = 0;
    for (String room : rooms) {
      long head = heads.get(room);
      long after = from.getOrDefault(room, 0L);
      if (head <= after) {
        continue;
      }
      int wanted = Math.min(PER_ROOM, budget - records.size());
      if (wanted < 1) {
        more = true;
        continue;
      }
      long started = System.nanoTime();
      List<Confirmed> page = feed.after(room, after, wanted);
      long read = System.nanoTime();
      long to = after;
      for (Confirmed c : page) {
        records.add(RelayRecords.message(config.topic(), c));
        to = c.cursor();
      }
      encoding += System.nanoTime() - read;
      phases.add(RelayPhases.Phase.READ, 1, read - started);
      if (page.size() < wanted) {
        // every cursor up to the head known before was visible to this read: those it did not
        // return belong to messages that are no longer CONFIRMED
        to = Math.max(to, head);
      }
      if (to > after) {
        moved.put(room, to);
      }
      more |= head > to;
    }
    if (!records.isEmpty()) {
      phases.add(RelayPhases.Phase.ENCODE, records.size(), encoding);
    }
    return new Batch(records, moved, more);
  }

  /**
   * Begins the transaction of {@code batch} and hands its records and the rooms' new positions to
   * the producer, which sends them while the caller goes on; {@link #commit} ends it.
   */
  void begin(Batch batch) {
    producer.beginTransaction();
    for (ProducerRecord<String, String> r : batch.records()) {
      producer.send(r);
    }
    for (Map.Entry<String, Long> e : batch.moved().entrySet()) {
      producer.send(
          RelayRecords.position(config.positionsTopic(), shard, e.getKey(), e.getValue()));
    }
  }

  /** Commits the transaction {@link #begin} began; then the batch's positions are the shard's. */
  void commit(Batch batch) {
    producer.commitTransaction();
    positions.putAll(batch.moved());
  }

  /**
   * One transaction's content: the message records, the rooms' positions after them, and whether a
   * room was known to hold more than it took.
   */
  record Batch(
      List<ProducerRecord<String, String>> records, Map<String, Long> moved, boolean more) {
    boolean empty() {
      return moved.isEmpty();
    }

    /**
     * This batch followed by {@code later}, read from this batch's positions on: each room's
     * messages stay in cursor order.
     */
    Batch plus(Batch later) {
      List<ProducerRecord<String, String>> all = new ArrayList<>(records);
      all.addAll(later.records());
      Map<String, Long> to = new HashMap<>(moved);
      to.putAll(later.moved());
      return new Batch(all, to, later.more());
    }

    /** {@code before} with this batch's positions on top. */
    Map<String, Long> after(Map<String, Long> before) {
      Map<String, Long> out = new HashMap<>(before);
      out.putAll(moved);
      return out;
    }
  }

  @Override
  public void close() {
    if (producer != null) {
      KafkaProducer<String, String> p = producer;
      producer = null;
      p.close(Duration.ofMillis(500));
    }
  }
}
