package dev.danmakuledger.bench.kafka;

import dev.danmakuledger.bench.ingest.CpuUse;
import dev.danmakuledger.bench.ingest.Dirs;
import dev.danmakuledger.bench.ingest.FreshDatabase;
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
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code bin/bench kafka} (docs/benchmarks.md, kafka). One real KRaft broker for the run.
 *
 * <p>Throughput: devices fill SQL with {@code messages} CONFIRMED messages through a sync server
 * without a relay; then, in each round, a relay starts on that database and the time until it has
 * committed all of them to a fresh topic gives messages/s, and the baseline, on the same broker, is
 * a raw idempotent producer ({@code acks=all}, no transactions, no SQL) sending the very records
 * the relay wrote, read back from its topic, to another fresh topic. Rounds that are not reported
 * run first until the JIT has settled; the figures are the medians of the measured rounds.
 *
 * <p>Lag, at the live shape: many devices each post a small batch to their own room every interval
 * through a sync server running the relay; a {@code read_committed} consumer notes when each
 * message appears in the topic, and the lag is that time less the time the device got its answer
 * (the answer comes after the SQL commit). The baseline: the device sends the same messages with a
 * raw idempotent producer the moment it has its answer, and the same consumer notes when those
 * appear — the floor of any relay on this broker.
 */
public final class KafkaBenchmark {
  private static final String WARM_UP_TOPIC = "bench.warm-up-";

  /** Warm-up rounds of the throughput part at most, when the JIT does not settle before. */
  static final int MAX_WARM_UP_ROUNDS = 8;

  private static final String ROUND_TOPIC = "bench.round-";
  private static final String RAW = ".raw";

  private KafkaBenchmark() {}

  /**
   * Options of one run.
   *
   * @param messages messages for the throughput part, 1,000..1,000,000
   * @param devices devices of the lag part, 1..500
   * @param batch messages per batch in the lag part, 1..100
   * @param every interval between a device's batches in the lag part
   * @param duration how long the lag part's devices post
   * @param warmUp a warm-up window of the lag part, whose devices post until the JIT settled before
   *     the lag is measured; when not zero, the throughput part also first runs rounds that are not
   *     reported until the JIT settled
   * @param rounds measured rounds of the throughput part, 1..9
   * @param brokerJvm the JVM the broker runs in
   * @param shards the relay's shards (docs/kafka.md, "Shards and fencing"), 1..64
   * @param rooms rooms of the throughput part, one device each, 1..256
   * @param jdbcUrl a MariaDB/MySQL server on which each part gets a fresh database, or null for an
   *     H2 file in the bench JVM
   */
  public record Options(
      int messages,
      int devices,
      int batch,
      Duration every,
      Duration duration,
      Duration warmUp,
      int rounds,
      LocalKafka.Jvm brokerJvm,
      int shards,
      int rooms,
      String jdbcUrl) {
    public Options {
      if (jdbcUrl != null) {
        FreshDatabase.requireServerUrl(jdbcUrl);
      }
      if (messages < 1_000 || messages > 1_000_000) {
        throw new IllegalArgumentException("messages: got " + messages + ", want 1000..1000000");
      }
      if (rooms < 1 || rooms > 256) {
        throw new IllegalArgumentException("rooms: got " + rooms + ", want 1..256");
      }
      if (shards < 1 || shards > 64) {
        throw new IllegalArgumentException("shards: got " + shards + ", want 1..64");
      }
      if (rounds < 1 || rounds > 9) {
        throw new IllegalArgumentException("rounds: got " + rounds + ", want 1..9");
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
    Objects.requireNonNull(o.brokerJvm(), "brokerJvm");
    Path tmp = Files.createTempDirectory("danmaku-bench-kafka-");
    try (LocalKafka kafka = LocalKafka.start(tmp.resolve("kafka"), 1, o.brokerJvm());
        EmbeddedRedis redis = EmbeddedRedis.start()) {
      log.printf(
          Locale.ROOT,
          "kafka: one KRaft broker at %s, JVM %s; SQL: %s%n",
          kafka.bootstrap(),
          o.brokerJvm().name().toLowerCase(Locale.ROOT),
          o.jdbcUrl() == null
              ? "an H2 file in this JVM"
              : "MariaDB/MySQL, a fresh database per part");
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

  /** A schema of its own on {@code o}'s server for one part of the run, or null for H2. */
  static FreshDatabase serverDatabase(Options o, Path tmp) throws SQLException {
    return o.jdbcUrl() == null ? null : FreshDatabase.create(o.jdbcUrl(), tmp);
  }

  /** The URL of {@code fresh}, or of an H2 file at {@code h2File} when there is none. */
  static String url(FreshDatabase fresh, Path h2File) {
    return fresh == null ? h2(h2File) : fresh.url();
  }

  private static BenchResult throughput(
      Options o, LocalKafka kafka, EmbeddedRedis redis, Path tmp, PrintStream log)
      throws Exception {
    // the raw producer's topics exist long before it sends: an idempotent producer sending to a
    // partition whose leader is not ready yet can be stuck retrying OUT_OF_ORDER_SEQUENCE_NUMBER
    List<String> topics = new ArrayList<>();
    if (!o.warmUp().isZero()) {
      for (int i = 1; i <= MAX_WARM_UP_ROUNDS; i++) {
        topics.add(WARM_UP_TOPIC + i);
      }
    }
    for (int i = 1; i <= o.rounds(); i++) {
      topics.add(ROUND_TOPIC + i);
    }
    for (String topic : topics) {
      TopicRecords.create(kafka.bootstrap(), topic + RAW);
    }
    try (FreshDatabase fresh = serverDatabase(o, tmp)) {
      return throughput(
          o, kafka, redis, tmp, url(fresh, tmp.resolve("throughput-db")), topics, log);
    }
  }

  private static BenchResult throughput(
      Options o,
      LocalKafka kafka,
      EmbeddedRedis redis,
      Path tmp,
      String jdbc,
      List<String> topics,
      PrintStream log)
      throws Exception {
    int devices = o.rooms();
    int per = o.messages() / devices;
    int total = per * devices;
    try (SyncServer server =
        SyncServer.start(
            ServerConfig.builder(tmp.resolve("data-throughput"))
                .redisUri(redis.uri())
                .jdbc(jdbc, null, null)
                .reviewRule(null)
                .build())) {
      ExecutorService pool = Executors.newFixedThreadPool(Math.min(devices, 8));
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
    try (Database db = Database.open(jdbc, null, null);
        RedisLinks links = RedisLinks.standalone(redis.uri())) {
      ConfirmedFeed feed = new ConfirmedFeed(db);
      if (!o.warmUp().isZero()) {
        warmUp(kafka, links, feed, total, o.shards(), log);
      }
      List<Round> rounds = new ArrayList<>();
      for (int i = 1; i <= o.rounds(); i++) {
        Round r = round(kafka, links, feed, total, ROUND_TOPIC + i, o.shards(), log);
        log.println("kafka: throughput round " + i + ": " + r);
        rounds.add(r);
      }
      double relayRate = median(rounds, Round::relay);
      double rawRate = median(rounds, Round::raw);
      double startup = median(rounds, Round::startupMs);
      log.printf(
          Locale.ROOT,
          "kafka: relay %.0f msg/s (SQL read + transactions); raw idempotent producer %.0f msg/s;"
              + " medians of %d rounds; ratio %.2f (target >= 0.8)%n",
          relayRate,
          rawRate,
          rounds.size(),
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
              "%d messages in %d rooms, from SQL (%s) to one broker, %d shards, transactions of"
                  + " up to 5000; medians of %d rounds%s, each a fresh topic, rate from the"
                  + " first commit (start-up: fencing, positions, %.0f ms); baseline: the same"
                  + " records, acks=all, no transactions; target ratio >= 0.8: %s",
              total,
              devices,
              o.jdbcUrl() == null ? "H2 in this JVM" : "MariaDB/MySQL",
              o.shards(),
              rounds.size(),
              o.warmUp().isZero() ? "" : " after warm-up rounds until the JIT settled",
              startup,
              relayRate / rawRate >= 0.8 ? "met" : "missed"));
    }
  }

  /**
   * Runs rounds that are not reported until the JIT's compiler threads took at most {@value
   * CpuUse#SETTLED_JIT_SHARE} of a core through a round's relay pass (or their CPU time cannot be
   * read), or {@value #MAX_WARM_UP_ROUNDS} rounds ran.
   */
  private static void warmUp(
      LocalKafka kafka,
      RedisLinks links,
      ConfirmedFeed feed,
      int total,
      int shards,
      PrintStream log)
      throws Exception {
    for (int i = 1; i <= MAX_WARM_UP_ROUNDS; i++) {
      Round warm = round(kafka, links, feed, total, WARM_UP_TOPIC + i, shards, log);
      log.printf(
          Locale.ROOT,
          "kafka: throughput warm-up round %d of at most %d (not reported): %s%n",
          i,
          MAX_WARM_UP_ROUNDS,
          warm);
      if (!(warm.relayJitShare() > CpuUse.SETTLED_JIT_SHARE)) {
        List<String> unused = new ArrayList<>();
        for (int rest = i + 1; rest <= MAX_WARM_UP_ROUNDS; rest++) {
          unused.add(WARM_UP_TOPIC + rest + RAW);
        }
        if (!unused.isEmpty()) {
          TopicRecords.delete(kafka.bootstrap(), unused.toArray(String[]::new));
        }
        return;
      }
    }
    log.printf(
        Locale.ROOT,
        "kafka: the JIT still compiled on more than %.0f%% of a core through the relay's pass"
            + " after %d warm-up rounds%n",
        CpuUse.SETTLED_JIT_SHARE * 100,
        MAX_WARM_UP_ROUNDS);
  }

  /**
   * One throughput round: a relay writes every CONFIRMED message of {@code feed} to the fresh topic
   * {@code topic}; the topic is checked against SQL and read back; a raw idempotent producer sends
   * the very same records to a fresh topic of its own.
   *
   * @param relay the relay's messages/s from its first commit to its last
   * @param raw the raw producer's messages/s
   * @param startupMs the relay's time until its first commit (fencing, positions)
   * @param relayJitShare the share of a core this JVM's JIT compilers were busy through the relay's
   *     pass (from its start to its last commit)
   * @param jitShare the same through the whole round (the topic check, the read-back and the raw
   *     producer too)
   */
  record Round(double relay, double raw, double startupMs, double relayJitShare, double jitShare) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "relay %.0f msg/s (start-up %.0f ms), raw %.0f msg/s, ratio %.2f; through the relay's"
              + " pass %s, through the round %s",
          relay,
          startupMs,
          raw,
          relay / raw,
          jitText(relayJitShare),
          jitText(jitShare));
    }
  }

  /** How a JIT share reads in the log. */
  static String jitText(double share) {
    return Double.isNaN(share)
        ? "the JIT's CPU not measured (no /proc)"
        : String.format(Locale.ROOT, "JIT compiling on %.0f%% of a core", share * 100);
  }

  private static Round round(
      LocalKafka kafka,
      RedisLinks links,
      ConfirmedFeed feed,
      int total,
      String topic,
      int shards,
      PrintStream log)
      throws Exception {
    KafkaRelayConfig config = relayConfig(kafka, topic, shards);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    double relayRate;
    double startup;
    double relayJitShare;
    CpuUse cpuBefore = CpuUse.now();
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
      relayJitShare = CpuUse.now().roleShareSince(cpuBefore, "JIT", end - start);
      relayRate = (total - before) / ((end - first) / 1e9);
      startup = (first - start) / 1e6;
      log.println("kafka: " + topic + ": " + RelayPhaseTimes.of(registry));
    }
    TopicCheck.Report check =
        TopicCheck.check(kafka.bootstrap(), config.topic(), feed, Duration.ofMinutes(2));
    log.println("kafka: " + topic + ": topic check: " + check.summary());
    if (!check.complete()) {
      throw new IllegalStateException("the relay's topic is not the ledger: " + check.summary());
    }
    String rawTopic = topic + RAW;
    List<ProducerRecord<String, String>> same =
        TopicRecords.read(kafka.bootstrap(), config.topic(), rawTopic);
    log.println(
        "kafka: " + rawTopic + ": the raw producer sends the same " + same.size() + " records");
    double rawRate = rawProducer(kafka, rawTopic, same);
    double jitShare = CpuUse.now().roleShareSince(cpuBefore, "JIT", System.nanoTime() - start);
    TopicRecords.delete(kafka.bootstrap(), config.topic(), rawTopic);
    return new Round(relayRate, rawRate, startup, relayJitShare, jitShare);
  }

  /** The relay's defaults for {@code topic}, with {@code shards} shards. */
  static KafkaRelayConfig relayConfig(LocalKafka kafka, String topic, int shards) {
    KafkaRelayConfig d = KafkaRelayConfig.of(kafka.bootstrap(), topic);
    return new KafkaRelayConfig(
        d.bootstrap(), d.topic(), shards, d.lease(), d.poll(), d.maxRecordsPerTransaction());
  }

  private static double median(List<Round> rounds, ToDoubleFunction<Round> figure) {
    double[] sorted = new double[rounds.size()];
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] = figure.applyAsDouble(rounds.get(i));
    }
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /**
   * Messages per second of a raw idempotent producer sending {@code records}, with the relay's
   * linger and batch size: what the relay adds to producing is its SQL reads and its transactions.
   */
  private static double rawProducer(
      LocalKafka kafka, String topic, List<ProducerRecord<String, String>> records)
      throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, KafkaRelayConfig.PRODUCER_BATCH_BYTES);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      producer.partitionsFor(topic);
      long start = System.nanoTime();
      for (ProducerRecord<String, String> r : records) {
        producer.send(r);
      }
      producer.flush();
      return records.size() / ((System.nanoTime() - start) / 1e9);
    }
  }
}
