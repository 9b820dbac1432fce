package dev.danmakuledger.bench.rooms;

import dev.danmakuledger.bench.ingest.Latencies;
import dev.danmakuledger.bench.report.BenchResult;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ten thousand followed rooms on one sync server, or on several behind HAProxy (docs/benchmarks.md,
 * "Rooms"): each server runs as its own JVM on a redis-server of its own; {@code rooms} rooms get
 * one SSE subscriber each and one more room {@code crowd} subscribers, then devices ingest into
 * {@code active} of the rooms (the crowded one among them) at {@code rate} messages a second with
 * the edge agent's linger. Reports the server's threads, Redis connections and RSS idle and at
 * their peak, every subscriber's stream judged (exactly the room's cursors 1..n, once each, in
 * order), the capture→viewer p99, and how long after the last acknowledgement every active room's
 * signed checkpoint covered all of it.
 */
public final class RoomsBenchmark {
  private static final String CROWD = "rooms-crowd";

  /** The share of the offered rate the devices must deliver for the latencies to count. */
  static final double KEEP_UP = 0.99;

  private RoomsBenchmark() {}

  /**
   * @param rooms rooms with one subscriber each, 1..100,000
   * @param crowd subscribers of one more room, 0..20,000
   * @param active rooms devices ingest into (the crowded one first), 1..rooms
   * @param devices ingesting devices, 1..active
   * @param rate messages per second over all devices, 1..20,000
   * @param duration how long the devices capture, measured, 1 s..10 min
   * @param warmUp how long the devices capture before that, not measured, 0..10 min
   * @param linger the devices' linger, 1 ms..1 s
   * @param heap the server JVM's -Xmx
   * @param jdbc a fresh MariaDB/MySQL database for the server, or null for its H2 file
   * @param servers sync servers, 1..4; more than one share {@code jdbc} behind an HAProxy
   */
  public record Options(
      int rooms,
      int crowd,
      int active,
      int devices,
      int rate,
      Duration duration,
      Duration warmUp,
      Duration linger,
      String heap,
      String jdbc,
      int servers) {
    public Options {
      check("servers", servers, 1, 4);
      if (servers > 1 && jdbc == null) {
        throw new IllegalArgumentException(
            "servers: got "
                + servers
                + " without --jdbc, want 1 (several instances share a MariaDB/MySQL database)");
      }
      check("rooms", rooms, 1, 100_000);
      check("crowd", crowd, 0, 20_000);
      check("active", active, 1, rooms);
      check("devices", devices, 1, active);
      check("rate", rate, 1, 20_000);
      if (duration.toMillis() < 1_000 || duration.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("duration: got " + duration + ", want 1s..10m");
      }
      if (warmUp.isNegative() || warmUp.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("warm-up: got " + warmUp + ", want 0s..10m");
      }
      if (linger.toMillis() < 1 || linger.toMillis() > 1_000) {
        throw new IllegalArgumentException("linger: got " + linger + ", want 1ms..1s");
      }
      if (heap == null || !heap.matches("[0-9]+[mg]")) {
        throw new IllegalArgumentException("heap: got " + heap + ", want e.g. 512m");
      }
    }

    private static void check(String name, int v, int min, int max) {
      if (v < min || v > max) {
        throw new IllegalArgumentException(name + ": got " + v + ", want " + min + ".." + max);
      }
    }
  }

  /** Runs once in {@code root} (server data, logs) with child JVMs on {@code classpath}. */
  public static List<BenchResult> run(Options o, PrintStream out, Path root, String classpath)
      throws Exception {
    try (RoomsProcesses p = new RoomsProcesses(root)) {
      List<String> flags = new ArrayList<>(List.of("--no-review"));
      int streams = o.rooms() + o.crowd();
      flags.addAll(
          List.of(
              "--max-streams", Integer.toString(Math.max(streams, 1)),
              "--max-streams-per-room", Integer.toString(Math.max(o.crowd(), 1)),
              "--max-streams-per-address", Integer.toString(Math.max(streams, 1))));
      if (o.jdbc() != null) {
        flags.addAll(List.of("--jdbc", o.jdbc()));
      }
      // every stream, each device's connection and some to spare
      int connections = streams + o.devices() * 4 + 1_000;
      p.startServers(root, o.servers(), o.heap(), flags, classpath, connections);
      Thread.sleep(3_000);
      Usage idle = p.usage();
      out.printf(Locale.ROOT, "idle: %s%n  threads: %s%n", idle, p.threadGroups());
      List<String> rooms = new ArrayList<>();
      for (int i = 0; i < o.rooms(); i++) {
        rooms.add("rooms-" + i);
      }
      Measured latencies = new Measured(!o.warmUp().isZero());
      ExecutorService sse = Executors.newFixedThreadPool(4);
      HttpClient http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .executor(sse)
              .connectTimeout(Duration.ofSeconds(20))
              .build();
      List<RoomViewer> viewers = new ArrayList<>();
      try {
        long opening = System.nanoTime();
        List<String> subscribed = new ArrayList<>(rooms);
        for (int i = 0; i < o.crowd(); i++) {
          subscribed.add(CROWD);
        }
        int refused = open(http, p, subscribed, latencies, viewers);
        out.printf(
            Locale.ROOT,
            "%d streams open in %.1f s (%d refused)%n",
            viewers.size() - refused,
            (System.nanoTime() - opening) / 1e9,
            refused);
        Thread.sleep(2_000);
        Usage subscribedUsage = p.usage();
        out.printf(
            Locale.ROOT,
            "subscribed, quiet: %s%n  threads: %s%n",
            subscribedUsage,
            p.threadGroups());
        List<String> activeRooms = new ArrayList<>();
        activeRooms.add(CROWD);
        activeRooms.addAll(rooms.subList(0, o.active() - 1));
        Measured acks = new Measured(!o.warmUp().isZero());
        Ingested ingested = ingest(o, p, activeRooms, acks, latencies, out);
        Map<String, Long> expected = ingested.acked();
        long lastAck = ingested.lastAck();
        long total = expected.values().stream().mapToLong(Long::longValue).sum();
        double achieved =
            ingested.measured()
                / Math.max(
                    o.duration().toNanos() / 1e9,
                    (lastAck - ingested.start() - o.linger().toNanos()) / 1e9);
        Usage peak = p.usage().max(subscribedUsage);
        long delivered = waitForDelivery(viewers, expected, Duration.ofSeconds(60));
        double deliveredAfter = (System.nanoTime() - lastAck) / 1e9;
        peak = peak.max(p.usage());
        out.printf(Locale.ROOT, "after ingest: threads: %s%n", p.threadGroups());
        double checkpointLag = checkpointLag(http, p.entry(0), expected, lastAck);
        long exact = RoomViewer.exactCount(viewers, expected);
        report(out, viewers, expected, exact);
        return results(
            o,
            p.balancerCount(),
            idle,
            subscribedUsage,
            peak,
            viewers.size(),
            exact,
            delivered,
            deliveredAfter,
            latencies.measured(),
            acks.measured(),
            achieved,
            checkpointLag,
            refused);
      } finally {
        for (RoomViewer v : viewers) {
          v.cancel();
        }
        sse.shutdownNow();
      }
    }
  }

  /**
   * Opens one stream per entry of {@code rooms}, at most 64 being opened at once, spread over the
   * entries of {@code p}.
   */
  private static int open(
      HttpClient http,
      RoomsProcesses p,
      List<String> rooms,
      Measured latencies,
      List<RoomViewer> out)
      throws InterruptedException {
    Semaphore opening = new Semaphore(64);
    AtomicInteger refused = new AtomicInteger();
    List<CompletableFuture<?>> heads = new ArrayList<>();
    for (String room : rooms) {
      URI server = p.entry(out.size());
      RoomViewer v = new RoomViewer(room, latencies);
      out.add(v);
      opening.acquire();
      CompletableFuture<Void> head = new CompletableFuture<>();
      heads.add(head);
      HttpRequest req =
          HttpRequest.newBuilder(server.resolve("/v1/rooms/" + room + "/stream"))
              .header("Accept", "text/event-stream")
              .build();
      http.sendAsync(
              req,
              info -> {
                if (info.statusCode() != 200) {
                  refused.incrementAndGet();
                }
                opening.release();
                head.complete(null);
                return HttpResponse.BodySubscribers.fromLineSubscriber(v);
              })
          .whenComplete(
              (r, e) -> {
                if (!head.isDone()) {
                  refused.incrementAndGet();
                  opening.release();
                  head.complete(null);
                }
              });
    }
    CompletableFuture.allOf(heads.toArray(new CompletableFuture<?>[0])).join();
    return refused.get();
  }

  /**
   * What the devices did: the messages acknowledged per room (the warm-up's too), how many of them
   * were captured in the measured part, when that part started and when the last acknowledgement
   * came (nanoTime).
   */
  private record Ingested(Map<String, Long> acked, long measured, long start, long lastAck) {}

  /**
   * Runs the devices, first for the warm-up and then for the measured part; each acknowledged
   * capture's capture→ack time goes to {@code acks}, and {@code deliveries} learns when the
   * measured part began.
   */
  private static Ingested ingest(
      Options o,
      RoomsProcesses p,
      List<String> active,
      Measured acks,
      Measured deliveries,
      PrintStream out)
      throws Exception {
    List<RoomsDevice> devices = new ArrayList<>();
    for (int d = 0; d < o.devices(); d++) {
      List<String> mine = new ArrayList<>();
      for (int i = d; i < active.size(); i += o.devices()) {
        mine.add(active.get(i));
      }
      devices.add(RoomsDevice.enroll(p.entry(d), p.enrollToken(), "rooms-bench-" + d, mine, acks));
    }
    ExecutorService pool = Executors.newFixedThreadPool(o.devices());
    try {
      if (!o.warmUp().isZero()) {
        long warm = System.nanoTime();
        Usage peak = capture(o, p, devices, pool, o.warmUp());
        long n = acked(devices);
        out.printf(
            Locale.ROOT,
            "warm-up (not reported): %d messages in %.1f s; capture->ack p99 %.1f ms,"
                + " capture->viewer p99 %.1f ms; peak: %s%n",
            n,
            (System.nanoTime() - warm) / 1e9,
            acks.warmUp().percentileMs(99),
            deliveries.warmUp().percentileMs(99),
            peak);
      }
      long before = acked(devices);
      long start = System.nanoTime();
      acks.start(start);
      deliveries.start(start);
      Usage peak = capture(o, p, devices, pool, o.duration());
      long lastAck = System.nanoTime();
      Map<String, Long> expected = new HashMap<>();
      for (RoomsDevice d : devices) {
        d.acked().forEach((room, n) -> expected.merge(room, n, Long::sum));
      }
      long measured = acked(devices) - before;
      out.printf(
          Locale.ROOT,
          "ingested %d messages into %d rooms in %.1f s; peak while ingesting: %s%n",
          measured,
          expected.size(),
          (lastAck - start) / 1e9,
          peak);
      return new Ingested(expected, measured, start, lastAck);
    } finally {
      pool.shutdown();
    }
  }

  /** Runs every device for {@code duration} at its share of the rate; the peak usage meanwhile. */
  private static Usage capture(
      Options o,
      RoomsProcesses p,
      List<RoomsDevice> devices,
      ExecutorService pool,
      Duration duration)
      throws Exception {
    List<Future<?>> runs = new ArrayList<>();
    for (RoomsDevice d : devices) {
      runs.add(
          pool.submit(
              () -> {
                d.run((double) o.rate() / o.devices(), duration, o.linger());
                return null;
              }));
    }
    Usage peak = p.usage();
    while (!runs.stream().allMatch(Future::isDone)) {
      Thread.sleep(1_000);
      peak = peak.max(p.usage());
    }
    for (Future<?> f : runs) {
      f.get();
    }
    return peak;
  }

  private static long acked(List<RoomsDevice> devices) {
    long n = 0;
    for (RoomsDevice d : devices) {
      for (long v : d.acked().values()) {
        n += v;
      }
    }
    return n;
  }

  /** Waits until every viewer received its room's count or {@code max} passed; returns how many. */
  private static long waitForDelivery(
      List<RoomViewer> viewers, Map<String, Long> expected, Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (true) {
      long done = 0;
      for (RoomViewer v : viewers) {
        if (v.received() >= expected.getOrDefault(v.room(), 0L)) {
          done++;
        }
      }
      if (done == viewers.size() || System.nanoTime() > deadline) {
        return done;
      }
      Thread.sleep(200);
    }
  }

  /**
   * Seconds from the last acknowledgement until every active room's published checkpoint covers all
   * its messages; NaN if some room's did not within 60 s.
   */
  private static double checkpointLag(
      HttpClient http, URI server, Map<String, Long> expected, long lastAck)
      throws IOException, InterruptedException {
    Map<String, Long> pending = new HashMap<>(expected);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!pending.isEmpty() && System.nanoTime() < deadline) {
      for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
        var e = it.next();
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(
                        server.resolve("/v1/rooms/" + e.getKey() + "/log/checkpoint"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        String[] lines = r.body().split("\n");
        if (r.statusCode() == 200 && lines.length > 1 && Long.parseLong(lines[1]) >= e.getValue()) {
          it.remove();
        }
      }
      if (!pending.isEmpty()) {
        Thread.sleep(100);
      }
    }
    return pending.isEmpty() ? (System.nanoTime() - lastAck) / 1e9 : Double.NaN;
  }

  private static void report(
      PrintStream out, List<RoomViewer> viewers, Map<String, Long> expected, long exact) {
    out.printf(Locale.ROOT, "streams exact: %d of %d%n", exact, viewers.size());
    int shown = 0;
    for (RoomViewer v : viewers) {
      long want = expected.getOrDefault(v.room(), 0L);
      if (!v.exact(want) && shown++ < 10) {
        out.println("  not exact: " + v.fault(want));
      }
    }
  }

  private static List<BenchResult> results(
      Options o,
      int balancers,
      Usage idle,
      Usage subscribed,
      Usage peak,
      int streams,
      long exact,
      long delivered,
      double deliveredAfter,
      Latencies latencies,
      Latencies acks,
      double achieved,
      double checkpointLag,
      int refused) {
    String params =
        String.format(
            Locale.ROOT,
            "%s; %d rooms x1 + %d in one room; %d active rooms, %d msg/s for %ds after a %ds"
                + " warm-up, linger %dms, -Xmx%s, %s",
            o.servers() == 1
                ? "one instance"
                : o.servers() + " instances behind HAProxy (" + balancers + " processes)",
            o.rooms(),
            o.crowd(),
            o.active(),
            o.rate(),
            o.duration().toSeconds(),
            o.warmUp().toSeconds(),
            o.linger().toMillis(),
            o.heap(),
            o.jdbc() == null ? "H2" : "MariaDB");
    List<BenchResult> rows = new ArrayList<>();
    String most = o.servers() == 1 ? "" : ", the instance with the most";
    rows.add(
        row(
            "threads added over idle (target <= 64)",
            peak.threads() - idle.threads(),
            "idle",
            idle.threads(),
            params + "; subscribed quiet " + subscribed.threads() + most));
    long addedConnections = peak.redisConnections() - idle.redisConnections();
    rows.add(
        row(
            "redis connections added over idle, an instance (target <= 4)",
            (double) addedConnections / o.servers(),
            "idle",
            idle.redisConnections(),
            params
                + (o.servers() == 1
                    ? ""
                    : "; " + addedConnections + " added by " + o.servers() + " instances")));
    rows.add(
        row(
            "RSS MiB at peak (target <= 1024)",
            peak.rssMib(),
            "idle",
            idle.rssMib(),
            params + "; subscribed quiet " + subscribed.rssMib() + " MiB" + most));
    rows.add(
        row(
            "streams exact (target: all)",
            exact,
            "streams",
            streams,
            refused
                + " refused; "
                + delivered
                + " complete "
                + String.format(Locale.ROOT, "%.1f s after the last ack", deliveredAfter)));
    rows.add(
        new BenchResult(
            "rooms",
            "capture->viewer ms (target p99 <= 150)",
            latencies.percentileMs(50),
            null,
            null,
            null,
            latencies.percentileMs(99),
            String.format(
                Locale.ROOT,
                "%d deliveries; ours = p50; offered %d, achieved %.0f msg/s%s",
                latencies.count(),
                o.rate(),
                achieved,
                achieved < KEEP_UP * o.rate()
                    ? "; not valid: the devices fell behind, the percentiles measure their backlog"
                    : "")));
    rows.add(
        new BenchResult(
            "rooms",
            "capture->ack ms (the devices' side of the above)",
            acks.percentileMs(50),
            null,
            null,
            null,
            acks.percentileMs(99),
            String.format(
                Locale.ROOT,
                "%d acknowledged; ours = p50; linger %d ms, one batch in flight per device",
                acks.count(),
                o.linger().toMillis())));
    rows.add(
        new BenchResult(
            "rooms",
            "checkpoint covers all, s after last ack (target <= 5)",
            Double.isNaN(checkpointLag) ? null : checkpointLag,
            null,
            null,
            null,
            null,
            Double.isNaN(checkpointLag)
                ? "some room not covered within 60 s"
                : o.active() + " rooms"));
    return rows;
  }

  private static BenchResult row(
      String metric, double ours, String baseline, double baselineValue, String note) {
    return new BenchResult("rooms", metric, ours, baseline, baselineValue, null, null, note);
  }
}
