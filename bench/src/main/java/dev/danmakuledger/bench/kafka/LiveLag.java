package dev.danmakuledger.bench.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.bench.ingest.CpuUse;
import dev.danmakuledger.bench.ingest.FreshDatabase;
import dev.danmakuledger.bench.ingest.Latencies;
import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.kafka.LocalKafka;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The lag part of {@link KafkaBenchmark}: commit to Kafka at the live shape, next to its floor. */
final class LiveLag {
  private static final String TOPIC = "bench.live";
  private static final String RAW = "bench.live.raw";
  private static final ObjectMapper JSON = Json.mapper();

  /** Warm-up windows of the lag part at most, when the JIT does not settle before. */
  static final int MAX_WARM_UP_WINDOWS = 6;

  private LiveLag() {}

  /**
   * Lets the devices run for windows of {@code window} until the JIT's compiler threads took at
   * most {@link CpuUse#SETTLED_JIT_SHARE} of a core through one (or their CPU time cannot be read),
   * or {@value #MAX_WARM_UP_WINDOWS} windows passed: the path of a small batch and of a transaction
   * of a few messages is not the one the throughput part compiled.
   *
   * @return how long the devices ran
   */
  private static Duration warmUp(Duration window, PrintStream log) throws InterruptedException {
    Duration ran = Duration.ZERO;
    for (int i = 1; i <= MAX_WARM_UP_WINDOWS && !window.isZero(); i++) {
      CpuUse before = CpuUse.now();
      long started = System.nanoTime();
      Thread.sleep(window.toMillis());
      ran = ran.plus(window);
      double share = CpuUse.now().roleShareSince(before, "JIT", System.nanoTime() - started);
      log.printf(
          Locale.ROOT,
          "kafka: lag: warm-up window %d of at most %d: %s%n",
          i,
          MAX_WARM_UP_WINDOWS,
          KafkaBenchmark.jitText(share));
      if (!(share > CpuUse.SETTLED_JIT_SHARE)) {
        break;
      }
    }
    return ran;
  }

  static BenchResult run(
      KafkaBenchmark.Options o, LocalKafka kafka, EmbeddedRedis redis, Path tmp, PrintStream log)
      throws Exception {
    Map<String, Long> acked = new ConcurrentHashMap<>();
    Map<String, Long> relayed = new ConcurrentHashMap<>();
    Map<String, Long> raw = new ConcurrentHashMap<>();
    TopicRecords.create(kafka.bootstrap(), TOPIC);
    TopicRecords.create(kafka.bootstrap(), RAW);
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
    pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    try (FreshDatabase fresh = KafkaBenchmark.serverDatabase(o, tmp);
        SyncServer server =
            SyncServer.start(
                ServerConfig.builder(tmp.resolve("data-live"))
                    .redisUri(redis.uri())
                    .jdbc(KafkaBenchmark.url(fresh, tmp.resolve("live-db")), null, null)
                    .reviewRule(null)
                    .kafka(KafkaBenchmark.relayConfig(kafka, TOPIC, o.shards()))
                    .build());
        KafkaProducer<String, String> producer =
            new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
      AtomicBoolean stop = new AtomicBoolean();
      Thread consumer = consumer(kafka.bootstrap(), relayed, raw, stop);
      consumer.start();
      List<BenchDevice> devices = new ArrayList<>();
      for (int d = 0; d < o.devices(); d++) {
        devices.add(
            BenchDevice.enroll(
                server.baseUri(), server.enrollToken(), "kafka-live-" + d, "live-" + d));
      }
      log.printf(
          Locale.ROOT,
          "kafka: lag: %d devices, each a batch of %d every %d ms to its own room, for %s"
              + " (%.0f msg/s offered)%n",
          o.devices(),
          o.batch(),
          o.every().toMillis(),
          o.duration(),
          o.devices() * o.batch() * 1000.0 / o.every().toMillis());
      // a thread a device, each posting at a fixed rate with one batch in flight, as an agent
      // does: a pool smaller than the devices, or a fixed delay after each answer, offers less
      ScheduledExecutorService pool = Executors.newScheduledThreadPool(devices.size());
      AtomicReference<Exception> failed = new AtomicReference<>();
      for (int d = 0; d < devices.size(); d++) {
        BenchDevice device = devices.get(d);
        long offset = o.every().toMillis() * d / devices.size();
        pool.scheduleAtFixedRate(
            () -> {
              try {
                Map<String, Long> mine = new HashMap<>();
                device.post(o.batch(), mine);
                acked.putAll(mine);
                for (String name : mine.keySet()) {
                  producer.send(new ProducerRecord<>(RAW, device.room(), name));
                }
              } catch (Exception e) {
                failed.compareAndSet(null, e);
              }
            },
            offset,
            o.every().toMillis(),
            TimeUnit.MILLISECONDS);
      }
      // what the devices send in the warm-up is relayed and checked, but a cold JVM's first
      // seconds are not the relay's lag (docs/benchmarks.md, "kafka")
      Duration warmedFor = warmUp(o.warmUp(), log);
      long measuredFrom = System.nanoTime();
      Thread.sleep(o.duration().toMillis());
      pool.shutdown();
      pool.awaitTermination(1, TimeUnit.MINUTES);
      producer.flush();
      if (failed.get() != null) {
        throw failed.get();
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while ((relayed.size() < acked.size() || raw.size() < acked.size())
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      stop.set(true);
      consumer.join(30_000);
      HttpResponse<String> scrape =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(server.baseUri().resolve("/metrics")).GET().build(),
                  HttpResponse.BodyHandlers.ofString());
      log.println("kafka: lag: " + RelayPhaseTimes.ofScrape(scrape.body()));
      Latencies ours = new Latencies();
      Latencies floor = new Latencies();
      Latencies warm = new Latencies();
      int early = 0;
      int measured = 0;
      int missing = 0;
      for (Map.Entry<String, Long> e : acked.entrySet()) {
        Long r = relayed.get(e.getKey());
        if (r == null) {
          missing++;
        }
        if (e.getValue() < measuredFrom) {
          if (r != null) {
            warm.add(Math.max(0, r - e.getValue()));
          }
          continue;
        }
        measured++;
        if (r != null) {
          if (r < e.getValue()) {
            early++;
          }
          ours.add(Math.max(0, r - e.getValue()));
        }
        Long f = raw.get(e.getKey());
        if (f != null) {
          floor.add(Math.max(0, f - e.getValue()));
        }
      }
      if (warm.count() > 0) {
        log.printf(
            Locale.ROOT,
            "kafka: lag: warm-up of %ds: %d messages relayed, p50 %.1f ms p99 %.1f ms (not"
                + " reported)%n",
            warmedFor.toSeconds(),
            warm.count(),
            warm.percentileMs(50),
            warm.percentileMs(99));
      }
      String note =
          String.format(
              Locale.ROOT,
              "%d devices x %d msgs every %d ms for %ds after a %ds warm-up: %d acknowledged,"
                  + " %d relayed (%d seen before the answer, counted 0), %d raw; %d of all %d"
                  + " never relayed; relay p99 %.1f ms (target <= 250: %s); baseline (raw"
                  + " idempotent producer at the answer) p50 %.1f p99 %.1f ms",
              o.devices(),
              o.batch(),
              o.every().toMillis(),
              o.duration().toSeconds(),
              warmedFor.toSeconds(),
              measured,
              ours.count(),
              early,
              floor.count(),
              missing,
              acked.size(),
              ours.percentileMs(99),
              missing == 0 && ours.count() == measured && ours.percentileMs(99) <= 250
                  ? "met"
                  : "missed",
              floor.percentileMs(50),
              floor.percentileMs(99));
      log.println("kafka: lag: " + note);
      return new BenchResult(
          "kafka-lag",
          "commit->kafka p50 ms",
          ours.percentileMs(50),
          "raw-idempotent-producer-at-answer",
          floor.percentileMs(50),
          null,
          ours.percentileMs(99),
          note);
    }
  }

  /** A read_committed consumer of both topics noting when each message appears. */
  private static Thread consumer(
      String bootstrap, Map<String, Long> relayed, Map<String, Long> raw, AtomicBoolean stop) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
    KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    List<TopicPartition> parts = new ArrayList<>();
    for (String topic : List.of(TOPIC, RAW)) {
      c.partitionsFor(topic).forEach(pi -> parts.add(new TopicPartition(topic, pi.partition())));
    }
    c.assign(parts);
    c.seekToBeginning(parts);
    Thread t =
        new Thread(
            () -> {
              try (c) {
                while (!stop.get()) {
                  for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    if (r.topic().equals(RAW)) {
                      raw.putIfAbsent(r.value(), now);
                    } else {
                      String text = JSON.readTree(r.value()).get("text").asText();
                      relayed.putIfAbsent(r.key() + "/" + text.substring(3), now);
                    }
                  }
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "kafka-bench-consumer");
    t.setDaemon(true);
    return t;
  }
}
