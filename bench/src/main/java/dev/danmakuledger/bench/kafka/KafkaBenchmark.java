package dev.danmakuledger.bench.kafka;

import dev.danmakuledger.bench.ingest.Dirs;
import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.kafka.KafkaRelay;
import dev.danmakuledger.server.kafka.KafkaRelayConfig;
import dev.danmakuledger.server.kafka.LocalKafka;
import dev.danmakuledger.server.kafka.RelayFeed;
import dev.danmakuledger.server.kafka.TopicCheck;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import dev.danmakuledger.server.redis.RedisLinks;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.Database;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code bin/bench kafka} (docs/benchmarks.md, kafka). One real KRaft broker for the run.
 *
 * <p>Throughput: devices fill SQL with {@code messages} CONFIRMED messages through a sync server
 * without a relay; then a relay starts on that database and the time until it has committed all of
 * them to a fresh topic gives messages/s. The baseline, in the same run on the same broker, is a
 * raw idempotent producer ({@code acks=all}, no transactions, no SQL) sending the very records the
 * relay wrote, read back from its topic, to another topic.
 *
 * <p>Lag, at the live shape: many devices each post a small batch to their own room every interval
 * through a sync server running the relay; a {@code read_committed} consumer notes when each
 * message appears in the topic, and the lag is that time less the time the device got its answer
 * (the answer comes after the SQL commit). The baseline: the device sends the same messages with a
 * raw idempotent producer the moment it has its answer, and the same consumer notes when those
 * appear — the floor of any relay on this broker.
 */
public final class KafkaBenchmark {
  private KafkaBenchmark() {}

  /**
   * Options of one run.
   *
   * @param messages messages for the throughput part, 1,000..1,000,000
   * @param devices devices of the lag part, 1..500
   * @param batch messages per batch in the lag part, 1..100
   * @param every interval between a device's batches in the lag part
   * @param duration how long the lag part's devices post
   */
  public record Options(
      int messages, int devices, int batch, Duration every, Duration duration, Duration warmUp) {
    public Options {
      if (messages < 1_000 || messages > 1_000_000) {
        throw new IllegalArgumentException("messages: got " + messages + ", want 1000..1000000");
      }
      if (devices < 1 || devices > 500) {
        throw new IllegalArgumentException("devices: got " + devices + ", want 1..500");
      }
      if (batch < 1 || batch > 100) {
        throw new IllegalArgumentException("batch: got " + batch + ", want 1..100");
      }
      if (every.toMillis() < 10 || every.toMillis() > 10_000) {
        throw new IllegalArgumentException("every: got " + every + ", want 10ms..10s");
      }
      if (duration.toSeconds() < 1 || duration.toSeconds() > 600) {
        throw new IllegalArgumentException("duration: got " + duration + ", want 1s..10m");
      }
      if (warmUp.isNegative() || warmUp.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("warm-up: got " + warmUp + ", want 0s..10m");
      }
    }
  }

  public static List<BenchResult> run(Options o, PrintStream log) throws Exception {
    Path tmp = Files.createTempDirectory("danmaku-bench-kafka-");
    try (LocalKafka kafka = LocalKafka.start(tmp.resolve("kafka"), 1);
        EmbeddedRedis redis = EmbeddedRedis.start()) {
      log.printf(Locale.ROOT, "kafka: one KRaft broker at %s%n", kafka.bootstrap());
      List<BenchResult> rows = new ArrayList<>();
      rows.add(throughput(o, kafka, redis, tmp, log));
      rows.add(LiveLag.run(o, kafka, redis, tmp, log));
      return rows;
    } finally {
      Dirs.deleteTree(tmp);
    }
  }

  static String h2(Path file) {
    return "jdbc:h2:file:"
        + file.toAbsolutePath()
        + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;AUTO_SERVER=TRUE";
  }

  private static BenchResult throughput(
      Options o, LocalKafka kafka, EmbeddedRedis redis, Path tmp, PrintStream log)
      throws Exception {
    String jdbc = h2(tmp.resolve("throughput-db"));
    int devices = 8;
    int per = o.messages() / devices;
    int total = per * devices;
    try (SyncServer server =
        SyncServer.start(
            ServerConfig.builder(tmp.resolve("data-throughput"))
                .redisUri(redis.uri())
                .jdbc(jdbc, null, null)
                .reviewRule(null)
                .build())) {
      ExecutorService pool = Executors.newFixedThreadPool(devices);
      List<Future<?>> done = new ArrayList<>();
      Map<String, Long> acked = new ConcurrentHashMap<>();
      for (int d = 0; d < devices; d++) {
        BenchDevice device =
            BenchDevice.enroll(
                server.baseUri(), server.enrollToken(), "kafka-fill-" + d, "fill-" + d);
        done.add(
            pool.submit(
                () -> {
                  for (int sent = 0; sent < per; sent += 500) {
                    device.post(Math.min(500, per - sent), acked);
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(10, TimeUnit.MINUTES);
      }
      pool.shutdown();
      log.printf(Locale.ROOT, "kafka: %d confirmed messages in SQL, in %d rooms%n", total, devices);
    }
    double relayRate;
    double startup;
    double withStartup;
    try (Database db = Database.open(jdbc, null, null);
        RedisLinks links = RedisLinks.standalone(redis.uri())) {
      ConfirmedFeed feed = new ConfirmedFeed(db);
      KafkaRelayConfig config = KafkaRelayConfig.of(kafka.bootstrap(), "bench.relay");
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      long start = System.nanoTime();
      try (KafkaRelay relay =
          new KafkaRelay(
                  config,
                  RelayFeed.of(feed),
                  links::shared,
                  "bench",
                  m -> log.println("kafka: ALERT " + m),
                  Clock.systemUTC())
              .meteredBy(registry)) {
        relay.start();
        long deadline = start + TimeUnit.MINUTES.toNanos(10);
        while (relay.published() == 0 && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        long first = System.nanoTime();
        long before = relay.published();
        while (relay.published() < total && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        if (relay.published() < total) {
          throw new IllegalStateException(
              "relay published " + relay.published() + " of " + total + " within 10 min");
        }
        long end = System.nanoTime();
        relayRate = (total - before) / ((end - first) / 1e9);
        log.println("kafka: throughput: " + RelayPhaseTimes.of(registry));
        startup = (first - start) / 1e6;
        withStartup = total / ((end - start) / 1e9);
      }
      TopicCheck.Report check =
          TopicCheck.check(kafka.bootstrap(), config.topic(), feed, Duration.ofMinutes(2));
      log.println("kafka: topic check: " + check.summary());
      if (!check.complete()) {
        throw new IllegalStateException("the relay's topic is not the ledger: " + check.summary());
      }
      List<ProducerRecord<String, String>> same =
          TopicRecords.read(kafka.bootstrap(), config.topic(), "bench.raw");
      double rawRate = rawProducer(kafka, same);
      log.printf(
          Locale.ROOT,
          "kafka: relay %.0f msg/s (SQL read + transactions); raw idempotent producer %.0f msg/s;"
              + " ratio %.2f (target >= 0.8)%n",
          relayRate,
          rawRate,
          relayRate / rawRate);
      return BenchResult.compared(
          "kafka",
          "messages/s",
          relayRate,
          "raw-idempotent-producer",
          rawRate,
          null,
          String.format(
              Locale.ROOT,
              "%d messages in %d rooms, from SQL (H2) to one broker, 4 shards, transactions of"
                  + " up to 5000; from the first commit (start-up: fencing, positions, %.0f ms;"
                  + " %.0f msg/s with it); baseline: the same records, acks=all, no"
                  + " transactions; target ratio >= 0.8: %s",
              total,
              devices,
              startup,
              withStartup,
              relayRate / rawRate >= 0.8 ? "met" : "missed"));
    }
  }

  /** Messages per second of a raw idempotent producer sending {@code records}. */
  private static double rawProducer(LocalKafka kafka, List<ProducerRecord<String, String>> records)
      throws Exception {
    TopicRecords.create(kafka.bootstrap(), "bench.raw");
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      producer.partitionsFor("bench.raw");
      long start = System.nanoTime();
      for (ProducerRecord<String, String> r : records) {
        producer.send(r);
      }
      producer.flush();
      return records.size() / ((System.nanoTime() - start) / 1e9);
    }
  }
}
