package dev.danmakuledger.bench.live;

import dev.danmakuledger.bench.ingest.CpuUse;
import dev.danmakuledger.bench.ingest.CrowdLimits;
import dev.danmakuledger.bench.ingest.Dirs;
import dev.danmakuledger.bench.ingest.FreshDatabase;
import dev.danmakuledger.bench.ingest.Latencies;
import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.bench.ingest.StageBreakdown;
import dev.danmakuledger.bench.link.LinkProfile;
import dev.danmakuledger.bench.link.LinkProxy;
import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.ingest.StageTimes;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A live venue across instances (docs/benchmarks.md, live): a device captures at a fixed rate and
 * syncs to instance A the way the edge agent's sync daemon does — a batch once the oldest pending
 * capture has waited {@code linger}, or at once while a backlog is pending ({@link LiveDevice}) —
 * and a viewer subscribed to the room on instance B measures each message's time from its local ack
 * to its SSE receipt. In the same run, right after the devices' part, a Redis PUBLISH→SUBSCRIBE
 * round trip at the same rate is the floor no broadcast on this Redis can beat. Each linger of the
 * sweep runs on its own room and device against the same two instances. With a {@link LinkProfile}
 * the devices reach instance A through one {@link LinkProxy} (a venue's terminals share its
 * uplink), and the target grows by the link's round trip.
 *
 * <p>A latency is only a latency if the device kept up: when fewer messages per second reached the
 * server than were captured, messages queue on the device and the percentiles measure that queue.
 * So every row reports the offered and the achieved rate, and a row whose achieved rate is below
 * {@value #KEEP_UP} of the offered one is marked {@code not valid} and never meets the target.
 */
public final class LiveBenchmark {
  /**
   * The most warm-up rounds a run takes for the JIT to settle: with 256 devices on two cores its
   * compiler threads get little of the machine and took 12 to 14 rounds of 20 s to catch up.
   */
  static final int MAX_WARM_UP_ROUNDS = 24;

  /** The share of the offered rate the device must deliver for its latencies to count. */
  static final double KEEP_UP = 0.99;

  private static final Pattern MARK = Pattern.compile("live #(\\d+)");

  private LiveBenchmark() {}

  /**
   * Options of one run.
   *
   * @param rate captures per second over all devices, 1..100000
   * @param devices devices sharing the rate, each its own enrolment, log and batches, 1..1024
   * @param duration how long the devices capture, 1 s..10 min
   * @param warmUp how long the same devices' shape runs first on a room of its own, untimed, so
   *     that the JIT has compiled the path before the clock starts; zero for none, at most 10 min
   * @param lingers the lingers to measure, one run each, each 1 ms..1 s
   * @param redisUri the Redis both instances share, or null for an embedded one
   * @param jdbcUrl a MariaDB/MySQL server (a fresh database, dropped after), or null for an H2 file
   *     database in server mode
   * @param link the link between the devices and instance A, or null for loopback without a proxy
   */
  public record Options(
      int rate,
      int devices,
      Duration duration,
      Duration warmUp,
      List<Duration> lingers,
      String redisUri,
      String jdbcUrl,
      LinkProfile link) {
    public Options {
      if (devices < 1 || devices > 1_024) {
        throw new IllegalArgumentException("devices: got " + devices + ", want 1..1024");
      }
      if (jdbcUrl != null) {
        FreshDatabase.requireServerUrl(jdbcUrl);
      }
      if (rate < 1 || rate > 100_000) {
        throw new IllegalArgumentException("rate: got " + rate + ", want 1..100000");
      }
      if (rate < devices) {
        throw new IllegalArgumentException(
            "rate: got " + rate + " for " + devices + " devices, want at least one a second each");
      }
      if (duration == null
          || duration.compareTo(Duration.ofSeconds(1)) < 0
          || duration.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("duration: got " + duration + ", want 1s..10m");
      }
      if (warmUp == null || warmUp.isNegative() || warmUp.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("warm-up: got " + warmUp + ", want 0s..10m");
      }
      lingers = List.copyOf(lingers);
      if (lingers.isEmpty() || lingers.size() > 8) {
        throw new IllegalArgumentException("lingers: got " + lingers.size() + ", want 1..8");
      }
      for (Duration linger : lingers) {
        if (linger.toMillis() < 1 || linger.toMillis() > 1_000) {
          throw new IllegalArgumentException("linger: got " + linger + ", want 1ms..1s");
        }
      }
    }
  }

  /**
   * What one linger's run measured.
   *
   * @param offered captures per second the device made
   * @param achieved messages per second the server acknowledged over the same window
   * @param maxBacklog the most captures ever pending on the device at once
   * @param batchP99 the 99th percentile of a batch's round trip to instance A, ms
   * @param batchMax the slowest batch round trip, ms: a capture that waited behind it waited that
   *     long
   * @param rtt the round trip of the devices' link, zero on loopback
   * @param resends batches sent again after their connection was cut without an answer
   * @param jitShare the share of a core the JIT's compiler threads took while the devices ran
   */
  record Outcome(
      Duration linger,
      long sent,
      long received,
      double offered,
      double achieved,
      long maxBacklog,
      double p50,
      double p99,
      double floorP50,
      double floorP99,
      double batchP99,
      double batchMax,
      Duration rtt,
      long resends,
      double jitShare) {
    /** The device kept up: the percentiles are latencies, not a queue's waiting time. */
    boolean valid() {
      return achieved >= KEEP_UP * offered && received == sent;
    }

    /**
     * The target of docs/benchmarks.md: p99 at most 50 ms plus the linger plus the link's round
     * trip, on a valid run.
     */
    boolean meetsTarget() {
      return valid() && p99 <= targetMs();
    }

    long targetMs() {
      return 50 + linger.toMillis() + rtt.toMillis();
    }
  }

  public static List<BenchResult> run(Options o, PrintStream log) throws Exception {
    Path tmp = Files.createTempDirectory("danmaku-bench-live-");
    try (EmbeddedRedis embedded = o.redisUri() == null ? EmbeddedRedis.start() : null;
        FreshDatabase db =
            o.jdbcUrl() == null ? null : FreshDatabase.create(o.jdbcUrl(), tmp.resolve("db"))) {
      String redisUri = embedded != null ? embedded.uri() : o.redisUri();
      String jdbc =
          db != null
              ? db.url()
              : "jdbc:h2:file:"
                  + tmp.resolve("db").toAbsolutePath()
                  + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;AUTO_SERVER=TRUE";
      ServerConfig config =
          ServerConfig.builder(tmp.resolve("data"))
              .redisUri(redisUri)
              .jdbc(jdbc, null, null)
              .reviewRule(null)
              .httpLimits(CrowdLimits.of(o.devices()))
              .build();
      log.printf(
          Locale.ROOT,
          "live: two instances on %s and %s; devices reach instance A over %s%n",
          embedded != null ? "an embedded Redis" : "Redis " + redisUri,
          db != null ? db.describe() : "an H2 file database in server mode",
          o.link() == null ? "loopback" : o.link().describe());
      String run = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
      try (SyncServer a = SyncServer.start(config);
          SyncServer b = SyncServer.start(config);
          LinkProxy proxy =
              o.link() == null
                  ? null
                  : new LinkProxy(
                      new InetSocketAddress(a.baseUri().getHost(), a.baseUri().getPort()),
                      o.link(),
                      1)) {
        Instances on =
            new Instances(
                a,
                proxy == null ? a.baseUri() : URI.create("http://127.0.0.1:" + proxy.port()),
                o.link() == null ? Duration.ZERO : o.link().rtt(),
                b,
                redisUri);
        List<LiveDevice> devices = enroll(on, run, o.devices());
        if (!o.warmUp().isZero()) {
          warmUp(on, devices, run, o, log);
        }
        List<BenchResult> rows = new ArrayList<>();
        List<Outcome> outcomes = new ArrayList<>();
        for (Duration linger : o.lingers()) {
          Outcome out = once(on, devices, run, o, o.duration(), linger, false, log);
          outcomes.add(out);
          rows.add(row(o.rate(), o.devices(), o.duration(), out));
        }
        if (proxy != null) {
          log.printf(
              Locale.ROOT,
              "live: the link carried %d bytes up and %d down over %d connections, %d drops%n",
              proxy.bytesUp(),
              proxy.bytesDown(),
              proxy.connections(),
              proxy.drops());
        }
        log.println("live: " + best(outcomes));
        return rows;
      }
    } finally {
      Dirs.deleteTree(tmp);
    }
  }

  /**
   * The two instances of a run and how the devices reach instance A.
   *
   * @param devicesTo instance A, or the link's proxy in front of it
   * @param rtt the link's round trip, zero on loopback
   * @param redisUri the Redis both share, for the floor
   */
  private record Instances(
      SyncServer a, URI devicesTo, Duration rtt, SyncServer b, String redisUri) {}

  /**
   * Runs the devices' shape in rounds of {@code --warm-up}, each on a room of its own, until the
   * JIT's compiler threads took at most {@value CpuUse#SETTLED_JIT_SHARE} of a core over a round,
   * or {@value #MAX_WARM_UP_ROUNDS} rounds ran: a server runs for days on compiled code, and on two
   * busy cores the optimising compiler falls behind a many-device load for minutes. The load goes
   * on until the compiler caught up, because an idle ledger lets the compiler drop the queued
   * compilations of its hot path, which the measured run would then pay for.
   */
  private static void warmUp(
      Instances on, List<LiveDevice> devices, String run, Options o, PrintStream log)
      throws Exception {
    for (int round = 1; round <= MAX_WARM_UP_ROUNDS; round++) {
      log.printf(
          Locale.ROOT,
          "live: warm-up round %d of at most %d, %ds on a room of its own (not reported)%n",
          round,
          MAX_WARM_UP_ROUNDS,
          o.warmUp().toSeconds());
      Outcome w =
          once(
              on, devices, run + "-warm-up-" + round, o, o.warmUp(), o.lingers().get(0), true, log);
      if (Double.isNaN(w.jitShare())) {
        log.println(
            "live: the JIT's share of a core cannot be read here (no /proc): one warm-up round");
        return;
      }
      if (w.jitShare() <= CpuUse.SETTLED_JIT_SHARE) {
        return;
      }
    }
    log.printf(
        Locale.ROOT,
        "live: the JIT still compiled on more than %.0f%% of a core after %d warm-up rounds%n",
        CpuUse.SETTLED_JIT_SHARE * 100,
        MAX_WARM_UP_ROUNDS);
  }

  /**
   * Enrols the run's devices on instance A once: they sync through every warm-up round and the
   * measured runs, as a venue's devices do, so no measured run pays for new devices' first batches
   * (their rows read, their connections opened).
   */
  private static List<LiveDevice> enroll(Instances on, String run, int devices) throws IOException {
    List<LiveDevice> enrolled = new ArrayList<>();
    HttpClient http = LedgerClient.newHttpClient();
    for (int d = 0; d < devices; d++) {
      enrolled.add(
          LiveDevice.enroll(
              on.devicesTo(), http, on.a().enrollToken(), "live-device-" + run + "-" + d));
    }
    return enrolled;
  }

  private static Outcome once(
      Instances on,
      List<LiveDevice> enrolled,
      String run,
      Options o,
      Duration duration,
      Duration linger,
      boolean warmUp,
      PrintStream log)
      throws Exception {
    SyncServer a = on.a();
    SyncServer b = on.b();
    URI devicesTo = on.devicesTo();
    int rate = o.rate();
    int devices = o.devices();
    String room = "live-bench-" + run + "-" + linger.toMillis() + "ms";
    log.printf(
        Locale.ROOT,
        "live: %d msg/s from %d device(s) for %s, linger %d ms, devices -> %s, viewer on %s,"
            + " room %s%n",
        rate,
        devices,
        duration,
        linger.toMillis(),
        devicesTo,
        b.baseUri(),
        room);
    Map<Long, Long> acked = new ConcurrentHashMap<>();
    Latencies sse = new Latencies();
    HttpResponse<Stream<String>> stream = subscribe(b.baseUri(), room);
    Map<Long, Long> replied = new ConcurrentHashMap<>();
    Map<Long, Long> seen = new ConcurrentHashMap<>();
    Thread viewer = new Thread(() -> view(stream, acked, seen, sse), "live-viewer");
    viewer.setDaemon(true);
    viewer.start();
    HttpClient http = LedgerClient.newHttpClient();
    StageTimes.Snapshot before = a.stageTimes();
    ServedBatches servedBefore = scrapeOrNull(a.baseUri(), http, log);
    CpuUse cpuBefore = CpuUse.now();
    long started = System.nanoTime();
    LiveDevice.Run r = LiveDevice.runAll(enrolled, room, rate, duration, linger, acked, replied);
    CpuUse cpuAtEnd = r.cpuAtEnd() != null ? r.cpuAtEnd() : CpuUse.now();
    double jitShare = cpuAtEnd.roleShareSince(cpuBefore, "JIT", System.nanoTime() - started);
    String cpu = cpuAtEnd.perRecordSince(cpuBefore, r.sent()).replace("/record", " a message");
    String stages = StageBreakdown.of(a.stageTimes().minus(before));
    ServedBatches servedAfter = scrapeOrNull(a.baseUri(), http, log);
    String served =
        servedBefore == null || servedAfter == null
            ? "not read (its /metrics could not be scraped)"
            : servedAfter.since(servedBefore);
    // a warm-up's viewer, on a cold JVM, may have been cut off as too slow: no use waiting long
    Duration drain = warmUp ? Duration.ofSeconds(5) : Duration.ofSeconds(30);
    long deadline = System.nanoTime() + drain.toNanos();
    while (received(sse) < r.sent() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(10_000_000);
    }
    stream.body().close();
    // the floor after the ledger's run, not beside it: its client's threads would take the CPU
    // of the server under test. Not after a warm-up round: its figures are not reported, and a
    // ledger idle that long lets the compiler drop the queued compilations of its hot path
    Latencies floor = new Latencies();
    if (!warmUp) {
      pubSub(on.redisUri(), rate, duration, floor);
    }
    Outcome out;
    synchronized (sse) {
      out =
          new Outcome(
              linger,
              r.sent(),
              sse.count(),
              r.offered(),
              r.achieved(),
              r.maxBacklog(),
              sse.percentileMs(50),
              sse.percentileMs(99),
              floor.percentileMs(50),
              floor.percentileMs(99),
              r.roundTrips().percentileMs(99),
              r.roundTrips().percentileMs(100),
              on.rtt(),
              r.resends(),
              jitShare);
    }
    log.printf(
        Locale.ROOT,
        "live: linger %d ms: offered %.1f msg/s, achieved %.1f msg/s (%s), most pending %d,"
            + " batch round trip p99 %.1f ms max %.1f ms, %d sent again after a cut; received %d of"
            + " %d; ack->SSE p50 %.2f ms p99 %.2f ms; %s; %s%n",
        linger.toMillis(),
        out.offered(),
        out.achieved(),
        out.valid() ? "kept up" : "NOT kept up: latencies are the device's backlog, not valid",
        out.maxBacklog(),
        out.batchP99(),
        out.batchMax(),
        out.resends(),
        out.received(),
        out.sent(),
        out.p50(),
        out.p99(),
        warmUp
            ? "Redis PUBLISH not measured in a warm-up"
            : String.format(
                Locale.ROOT,
                "Redis PUBLISH p50 %.2f ms p99 %.2f ms",
                out.floorP50(),
                out.floorP99()),
        Double.isNaN(out.jitShare())
            ? "the JIT's share of a core not measured (no /proc)"
            : String.format(
                Locale.ROOT, "the JIT compiled on %.0f%% of a core", out.jitShare() * 100));
    log.println("live: where ack->SSE goes: " + legs(r, replied, seen));
    log.println("live: instance A's stages (server ms): " + stages);
    log.println("live: instance A answered batches (its danmaku_batch_seconds) " + served);
    log.println("live: " + cpu + " (the devices, both instances and the viewer share the JVM)");
    return out;
  }

  /**
   * Instance {@code base}'s batch histogram, or null when its {@code /metrics} cannot be read: the
   * shares are a breakdown beside the run's figures, not a reason to lose the run.
   */
  private static ServedBatches scrapeOrNull(URI base, HttpClient http, PrintStream log)
      throws InterruptedException {
    try {
      return ServedBatches.scrape(base, http);
    } catch (IOException | IllegalArgumentException e) {
      log.println("live: " + base + "/metrics not read: " + e.getMessage());
      return null;
    }
  }

  /** Which linger of a sweep gave the lowest p99 among the runs whose device kept up. */
  static String best(List<Outcome> outcomes) {
    Outcome best = null;
    for (Outcome o : outcomes) {
      if (o.valid() && (best == null || o.p99() < best.p99())) {
        best = o;
      }
    }
    if (best == null) {
      return "no linger kept up with the offered rate: no latency measured";
    }
    return String.format(
        Locale.ROOT,
        "lowest p99 of the runs that kept up: linger %d ms, p99 %.2f ms (target <= %d ms: %s)",
        best.linger().toMillis(),
        best.p99(),
        best.targetMs(),
        best.meetsTarget() ? "met" : "missed");
  }

  private static int received(Latencies l) {
    synchronized (l) {
      return l.count();
    }
  }

  /** The report row of one linger: p50 against the floor's p50, p99 and rates in the note. */
  static BenchResult row(int rate, int devices, Duration duration, Outcome out) {
    String note =
        String.format(
            Locale.ROOT,
            "%d msg/s from %d device(s) for %ds, linger %d ms: offered %.1f msg/s, achieved %.1f msg/s (%s), most"
                + " pending on the device %d, batch round trip p99 %.1f ms max %.1f ms, %d sent"
                + " again after a cut, received %d of %d; link RTT %d ms; target p99 <= %d ms: %s;"
                + " baseline p50 %.2f ms p99 %.2f ms",
            rate,
            devices,
            duration.toSeconds(),
            out.linger().toMillis(),
            out.offered(),
            out.achieved(),
            out.valid() ? "kept up" : "not valid: the device fell behind",
            out.maxBacklog(),
            out.batchP99(),
            out.batchMax(),
            out.resends(),
            out.received(),
            out.sent(),
            out.rtt().toMillis(),
            out.targetMs(),
            out.valid() ? (out.meetsTarget() ? "met" : "missed") : "not shown (not valid)",
            out.floorP50(),
            out.floorP99());
    return BenchResult.compared(
        "live", "p50 ms", out.p50(), "redis-publish-subscribe", out.floorP50(), out.p99(), note);
  }

  private static HttpResponse<Stream<String>> subscribe(URI base, String room) throws Exception {
    return HttpClient.newHttpClient()
        .sendAsync(
            HttpRequest.newBuilder(base.resolve("/v1/rooms/" + room + "/stream"))
                .header("Accept", "text/event-stream")
                .build(),
            HttpResponse.BodyHandlers.ofLines())
        .get();
  }

  /**
   * The legs of a message's way: from when it was due until its batch was posted (the linger, or
   * the answer to the device's batch in flight; the capture thread's own delay, on cores the
   * devices share with the servers, shown apart), the batch's round trip, and from the device's
   * answer until the viewer's receipt (negative when the viewer had it first).
   */
  private static String legs(LiveDevice.Run r, Map<Long, Long> replied, Map<Long, Long> seen) {
    Latencies afterAnswer = new Latencies();
    seen.forEach(
        (n, at) -> {
          Long answered = replied.get(n);
          if (answered != null) {
            afterAnswer.add(at - answered);
          }
        });
    return String.format(
        Locale.ROOT,
        "due->posted p50 %.1f ms p99 %.1f ms (of which the capture thread late p50 %.1f ms p99"
            + " %.1f ms); batch round trip p50 %.1f ms p99 %.1f ms; answer->SSE p50 %.1f ms p99"
            + " %.1f ms (negative: the viewer first)",
        r.waited().percentileMs(50),
        r.waited().percentileMs(99),
        r.late().percentileMs(50),
        r.late().percentileMs(99),
        r.roundTrips().percentileMs(50),
        r.roundTrips().percentileMs(99),
        afterAnswer.percentileMs(50),
        afterAnswer.percentileMs(99));
  }

  private static void view(
      HttpResponse<Stream<String>> stream,
      Map<Long, Long> acked,
      Map<Long, Long> seen,
      Latencies out) {
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
                  long n = Long.parseLong(m.group(1));
                  seen.put(n, now);
                  Long at = acked.remove(n);
                  if (at != null) {
                    synchronized (out) {
                      out.add(now - at);
                    }
                  }
                }
              });
    } catch (RuntimeException e) {
      // the run closed the stream
    }
  }

  /** The floor: a PUBLISH to a subscribed channel on the same Redis, at the same rate. */
  private static void pubSub(String uri, int rate, Duration duration, Latencies out) {
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub();
        var pub = client.connect()) {
      sub.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              long now = System.nanoTime();
              synchronized (out) {
                out.add(now - Long.parseLong(message));
              }
            }
          });
      sub.sync().subscribe("live-bench-floor");
      long period = 1_000_000_000L / rate;
      long end = System.nanoTime() + duration.toNanos();
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
