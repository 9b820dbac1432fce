package dev.danmakuledger.bench.live;

import dev.danmakuledger.bench.ingest.Dirs;
import dev.danmakuledger.bench.ingest.Latencies;
import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.bench.ingest.SimulatedDevice;
import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One online device posts small signed batches to instance A at a fixed rate, flushing every {@code
 * linger}; a viewer subscribed to the room on instance B measures the time from each message's
 * local ack (when the device captured it) to its SSE receipt. In the same run, a Redis
 * PUBLISH→SUBSCRIBE round trip at the same rate is the floor no broadcast on this Redis can beat.
 */
public final class LiveBenchmark {
  private static final Pattern MARK = Pattern.compile("live #(\\d+)");

  private LiveBenchmark() {}

  /** Options of one run. */
  public record Options(int rate, Duration duration, Duration linger) {
    public Options {
      if (rate < 1 || rate > 100_000) {
        throw new IllegalArgumentException("rate: got " + rate + ", want 1..100000");
      }
      if (linger.toMillis() < 1 || linger.toMillis() > 1_000) {
        throw new IllegalArgumentException("linger: got " + linger + ", want 1ms..1s");
      }
    }
  }

  public static List<BenchResult> run(Options o, PrintStream log) throws Exception {
    Path tmp = Files.createTempDirectory("danmaku-bench-live-");
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      String jdbc =
          "jdbc:h2:file:"
              + tmp.resolve("db").toAbsolutePath()
              + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;AUTO_SERVER=TRUE";
      ServerConfig config =
          ServerConfig.builder(tmp.resolve("data"))
              .redisUri(redis.uri())
              .jdbc(jdbc, null, null)
              .reviewRule(null)
              .build();
      try (SyncServer a = SyncServer.start(config);
          SyncServer b = SyncServer.start(config)) {
        log.printf(
            Locale.ROOT,
            "live: %d msg/s for %s, linger %d ms, device -> %s, viewer on %s%n",
            o.rate(),
            o.duration(),
            o.linger().toMillis(),
            a.baseUri(),
            b.baseUri());
        Map<Long, Long> acked = new ConcurrentHashMap<>();
        Latencies sse = new Latencies();
        String room = "live-bench";
        HttpResponse<java.util.stream.Stream<String>> stream = subscribe(b.baseUri(), room);
        Thread viewer = new Thread(() -> view(stream, acked, sse), "live-viewer");
        viewer.setDaemon(true);
        viewer.start();
        Latencies pubsub = new Latencies();
        Thread floor = new Thread(() -> pubSub(redis.uri(), o, pubsub), "live-pubsub");
        floor.setDaemon(true);
        floor.start();
        long sent = post(a, room, o, acked);
        floor.join(o.duration().toMillis() + 30_000);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (sse.count() < sent && System.nanoTime() < deadline) {
          LockSupport.parkNanos(10_000_000);
        }
        stream.body().close();
        log.printf(Locale.ROOT, "live: sent %d, viewer received %d%n", sent, sse.count());
        String note =
            String.format(
                Locale.ROOT,
                "%d msg/s for %ds, linger %d ms, received %d of %d; baseline p50 %.2f ms p99 %.2f"
                    + " ms",
                o.rate(),
                o.duration().toSeconds(),
                o.linger().toMillis(),
                sse.count(),
                sent,
                pubsub.percentileMs(50),
                pubsub.percentileMs(99));
        List<BenchResult> rows = new ArrayList<>();
        rows.add(
            BenchResult.compared(
                "live",
                "p50 ms",
                sse.percentileMs(50),
                "redis-publish-subscribe",
                pubsub.percentileMs(50),
                sse.percentileMs(99),
                note));
        return rows;
      }
    } finally {
      Dirs.deleteTree(tmp);
    }
  }

  private static HttpResponse<java.util.stream.Stream<String>> subscribe(URI base, String room)
      throws Exception {
    return HttpClient.newHttpClient()
        .sendAsync(
            HttpRequest.newBuilder(base.resolve("/v1/rooms/" + room + "/stream"))
                .header("Accept", "text/event-stream")
                .build(),
            HttpResponse.BodyHandlers.ofLines())
        .get();
  }

  private static void view(
      HttpResponse<java.util.stream.Stream<String>> stream, Map<Long, Long> acked, Latencies out) {
    try {
      stream
          .body()
          .forEach(
              line -> {
                long now = System.nanoTime();
                if (!line.startsWith("data:")) {
                  return;
                }
                Matcher m = MARK.matcher(line);
                if (m.find()) {
                  Long at = acked.remove(Long.parseLong(m.group(1)));
                  if (at != null) {
                    out.add(now - at);
                  }
                }
              });
    } catch (RuntimeException e) {
      // the run closed the stream
    }
  }

  /** Posts at the rate, one batch per linger; each message is acked locally when captured. */
  private static long post(SyncServer a, String room, Options o, Map<Long, Long> acked)
      throws IOException, InterruptedException {
    LedgerClient client = new LedgerClient(a.baseUri(), Duration.ofSeconds(30));
    SecureRandom random = new SecureRandom();
    SimulatedDevice device = SimulatedDevice.create("live-device", random);
    if (!client.enroll(device.deviceId(), device.publicKeyBase64(), a.enrollToken()).ok()) {
      throw new IOException("enroll live-device failed");
    }
    long start = System.nanoTime();
    long end = start + o.duration().toNanos();
    long periodNanos = 1_000_000_000L / o.rate();
    long next = 0;
    long millis = System.currentTimeMillis();
    while (System.nanoTime() < end) {
      long flushAt = System.nanoTime() + o.linger().toNanos();
      List<DanmakuRecord> drafts = new ArrayList<>();
      while (System.nanoTime() < flushAt) {
        long due = start + next * periodNanos;
        if (due > System.nanoTime()) {
          LockSupport.parkNanos(Math.min(due, flushAt) - System.nanoTime());
          continue;
        }
        acked.put(next, due);
        IdempotencyKey key =
            new IdempotencyKey(
                device.deviceId(),
                "viewer",
                ++millis,
                String.format(Locale.ROOT, "%016x", random.nextLong()));
        drafts.add(
            new DanmakuRecord(
                key,
                device.deviceId(),
                room,
                "viewer",
                "live #" + next,
                1_000L,
                1,
                0xFFFFFF,
                25,
                millis << 16,
                0));
        next++;
      }
      if (!drafts.isEmpty()) {
        LedgerClient.Reply<?> r = client.postBatch(device.deviceId(), device.append(drafts));
        if (!r.ok()) {
          throw new IOException("batch failed: " + r.code());
        }
      }
    }
    return next;
  }

  /** The floor: a PUBLISH to a subscribed channel on the same Redis, at the same rate. */
  private static void pubSub(String uri, Options o, Latencies out) {
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub();
        var pub = client.connect()) {
      sub.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              out.add(System.nanoTime() - Long.parseLong(message));
            }
          });
      sub.sync().subscribe("live-bench-floor");
      long period = 1_000_000_000L / o.rate();
      long end = System.nanoTime() + o.duration().toNanos();
      for (long t = System.nanoTime(); t < end; t += period) {
        long wait = t - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        pub.sync().publish("live-bench-floor", Long.toString(System.nanoTime()));
      }
      LockSupport.parkNanos(200_000_000);
    } finally {
      client.shutdown();
    }
  }
}
