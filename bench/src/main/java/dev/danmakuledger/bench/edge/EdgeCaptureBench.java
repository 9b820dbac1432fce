package dev.danmakuledger.bench.edge;

import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.edge.api.IngestServer;
import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.importer.BilibiliImporter;
import dev.danmakuledger.edge.importer.ImportProgress;
import dev.danmakuledger.edge.importer.ImportSummary;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The edge capture benchmark (docs/benchmarks.md, edge capture).
 *
 * <ul>
 *   <li><b>bulk capture</b>: records/s through {@link CaptureService#submitAll} in groups of 1024
 *       (validation, Bloom check, HLC, canonical bytes, leaf hash, compact-range append, one
 *       Ed25519-signed checkpoint per transaction, WAL with {@code synchronous=FULL}), next to a
 *       raw sqlite-jdbc batched insert of the very rows the agent stored into the same schema, same
 *       pragmas, same 1024 rows per transaction: {@value #BASELINE}.
 *   <li><b>bulk import</b>: the same through {@link BilibiliImporter} from a Bilibili XML file,
 *       parsing included, against the same baseline.
 *   <li><b>API ack p99</b>: one client posting to {@code POST /v1/danmaku} one at a time over a
 *       keep-alive loopback connection ({@link LoopbackHttp}), each answer after its own durable
 *       commit, next to the p99 of a single-row INSERT + COMMIT in SQLite with the same pragmas on
 *       the same disk ({@link RawCommitLatency}), one of each per iteration of the same loop, so
 *       both see the same disk and machine. The loop also times one {@link CaptureService#capture}
 *       without HTTP and the agent's transaction as plain statements, which take an ack apart. All
 *       are timed after the same number of warm-up calls ({@link Settings#latencyWarmUp}), as in an
 *       agent that has been serving for a while; the acks of the freshly started agent are timed as
 *       well and printed beside them (its first acks run code the JIT has not compiled yet). Also
 *       printed: the same posts through {@code java.net.http.HttpClient}, and the HTTP stack alone
 *       (a GET the server answers 404 without touching the capture path).
 * </ul>
 *
 * After {@value #WARM_UP_ROUNDS} full-size warm-up runs of each side (agent, baseline and import,
 * so every measured run is of JIT-compiled code), repetitions alternate agent and baseline in fresh
 * directories; the median is reported.
 */
public final class EdgeCaptureBench {
  public static final String BENCHMARK = "edge";
  public static final String BASELINE = "sqlite-raw-insert";
  static final int GROUP = 1024;

  /**
   * Number of the first capture the latency loop makes without HTTP (keys apart from the posts).
   */
  private static final int DIRECT_FIRST = 1_000_000;

  /**
   * Full-size runs of each side before measuring. The raw insert is one small loop, compiled after
   * its first run; the agent's path is many methods on three threads, and with a single warm-up
   * round its measured rate still climbed by half over the next five repetitions
   * (docs/benchmarks.md, edge).
   */
  static final int WARM_UP_ROUNDS = 6;

  private EdgeCaptureBench() {}

  /**
   * Sizes of a run.
   *
   * @param records records per repetition of the bulk benchmarks
   * @param repetitions repetitions of each bulk benchmark (median reported)
   * @param latencySamples measured single posts (and single commits of the baseline)
   * @param latencyWarmUp untimed calls before them, on each side
   */
  public record Settings(int records, int repetitions, int latencySamples, int latencyWarmUp) {
    /** Warm-up calls by default: single acks reach their steady state after about 30,000. */
    public static final int DEFAULT_LATENCY_WARM_UP = 30_000;

    public Settings {
      if (records < GROUP || repetitions < 1 || latencySamples < 100 || latencyWarmUp < 0) {
        throw new IllegalArgumentException(
            "settings: got records "
                + records
                + ", repetitions "
                + repetitions
                + ", latency samples "
                + latencySamples
                + ", latency warm-up "
                + latencyWarmUp
                + "; want >= "
                + GROUP
                + ", >= 1, >= 100, >= 0");
      }
    }

    /** 20,000 records, 5 repetitions, 2,000 latency samples after 30,000 warm-up calls. */
    public static Settings defaults() {
      return new Settings(20_000, 5, 2_000, DEFAULT_LATENCY_WARM_UP);
    }
  }

  /** Runs with default settings in a temporary directory; prints a table to {@code out}. */
  public static List<BenchResult> run(PrintStream out) throws Exception {
    return run(Files.createTempDirectory("edge-bench"), Settings.defaults(), out);
  }

  /**
   * Runs every measurement in subdirectories of {@code workDir}, prints each repetition and a
   * summary table to {@code out}, and returns the rows {benchmark, metric, ours, baseline,
   * baselineValue, ratio}.
   */
  public static List<BenchResult> run(Path workDir, Settings s, PrintStream out) throws Exception {
    List<CaptureRequest> requests = requests(s.records());
    Path xml = workDir.resolve("import.xml");
    writeBilibiliXml(xml, s.records());

    double[] capture = new double[s.repetitions()];
    double[] imported = new double[s.repetitions()];
    double[] raw = new double[s.repetitions()];
    out.printf(
        Locale.ROOT,
        "edge: %d records per repetition, %d per transaction, WAL + synchronous=FULL%n",
        s.records(),
        GROUP);
    out.printf(
        Locale.ROOT,
        "%-4s %16s %16s %16s%n",
        "rep",
        "capture rec/s",
        "import rec/s",
        BASELINE + " rec/s");
    for (int round = 0; round < WARM_UP_ROUNDS; round++) {
      Path warm = workDir.resolve("warm-up-" + round);
      List<StoredRecord> warmRows = new ArrayList<>();
      bulkCapture(warm.resolve("capture"), requests, warmRows);
      rawInsert(warm.resolve("raw"), warmRows);
      bulkImport(warm.resolve("import"), xml, s.records());
    }
    for (int rep = 0; rep < s.repetitions(); rep++) {
      Path dir = workDir.resolve("rep-" + rep);
      List<StoredRecord> rows = new ArrayList<>();
      capture[rep] = bulkCapture(dir.resolve("capture"), requests, rows);
      raw[rep] = rawInsert(dir.resolve("raw"), rows);
      imported[rep] = bulkImport(dir.resolve("import"), xml, s.records());
      out.printf(
          Locale.ROOT,
          "%-4d %,16.0f %,16.0f %,16.0f%n",
          rep,
          capture[rep],
          imported[rep],
          raw[rep]);
    }
    double rawMedian = median(raw);
    ApiLatency apis = apiLatency(workDir.resolve("api"), s.latencySamples(), s.latencyWarmUp());
    Latency api = apis.loopback();
    Latency commit = percentiles(apis.floor().oneRow().total);
    out.printf(
        Locale.ROOT,
        "POST /v1/danmaku ack after %,d warm-up acks: p50 %.3f ms, p99 %.3f ms; %s single commit"
            + " in the same loop: p50 %.3f ms, p99 %.3f ms%n",
        s.latencyWarmUp(),
        api.p50Ms,
        api.p99Ms,
        BASELINE,
        commit.p50Ms,
        commit.p99Ms);
    printBreakdown(out, apis);
    out.printf(
        Locale.ROOT,
        "  the first %,d acks of the freshly started agent: p50 %.3f ms, p99 %.3f ms%n",
        s.latencySamples(),
        apis.cold().p50Ms,
        apis.cold().p99Ms);
    out.printf(
        Locale.ROOT,
        "  the same POST with java.net.http.HttpClient: p50 %.3f ms, p99 %.3f ms;"
            + " HTTP alone (GET answered 404): p50 %.3f ms, p99 %.3f ms%n",
        apis.jdkClient().p50Ms,
        apis.jdkClient().p99Ms,
        apis.httpAlone().p50Ms,
        apis.httpAlone().p99Ms);

    List<BenchResult> results = new ArrayList<>();
    results.add(
        BenchResult.compared(
            BENCHMARK,
            "capture rec/s",
            median(capture),
            BASELINE,
            rawMedian,
            null,
            "durable bulk capture, Bloom+Merkle+signed checkpoint per 1024; target ratio >= 0.8"));
    results.add(
        BenchResult.compared(
            BENCHMARK,
            "import rec/s",
            median(imported),
            BASELINE,
            rawMedian,
            null,
            "Bilibili XML import incl. parsing, same pipeline"));
    results.add(
        new BenchResult(
            BENCHMARK,
            "ack ms p99",
            api.p99Ms,
            BASELINE,
            commit.p99Ms,
            commit.p99Ms > 0 ? api.p99Ms / commit.p99Ms : null,
            api.p99Ms,
            String.format(
                Locale.ROOT,
                "one durable POST /v1/danmaku at a time (keep-alive loopback client) vs one"
                    + " INSERT+COMMIT in the same loop, each after %d warm-up calls; the agent's"
                    + " first %d acks"
                    + " after start: p99 %.3f ms; lower is better; target p99 <= 2 ms",
                s.latencyWarmUp(),
                s.latencySamples(),
                apis.cold().p99Ms)));
    Latency shaped = percentiles(apis.floor().agentShaped().total);
    results.add(
        new BenchResult(
            BENCHMARK,
            "capture ms p99",
            apis.direct().p99Ms,
            "sqlite-raw-agent-txn",
            shaped.p99Ms,
            shaped.p99Ms > 0 ? apis.direct().p99Ms / shaped.p99Ms : null,
            apis.direct().p99Ms,
            "one CaptureService.capture without HTTP vs the same rows (record, checkpoint note, log"
                + " state, counters) as plain statements + COMMIT, in the same loop as the acks;"
                + " lower is better"));
    return results;
  }

  /** A device's store and capture service in a fresh directory. */
  private record Agent(EdgeStore store, CaptureService capture) implements AutoCloseable {
    static Agent start(Path dir) throws IOException {
      Files.createDirectories(dir);
      DeviceIdentity id = DeviceIdentity.generate(dir, "bench-1", new SecureRandom());
      EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL);
      return new Agent(
          store,
          CaptureService.start(
              store, id, BloomConfig.defaults(), Long.MAX_VALUE, Clock.systemUTC()));
    }

    @Override
    public void close() throws IOException {
      try {
        capture.close();
      } finally {
        store.close();
      }
    }
  }

  private static double bulkCapture(
      Path dir, List<CaptureRequest> requests, List<StoredRecord> rowsOut) throws Exception {
    try (Agent agent = Agent.start(dir)) {
      long start = System.nanoTime();
      List<CompletableFuture<CaptureAck>> futures = new ArrayList<>(requests.size());
      for (int i = 0; i < requests.size(); i += GROUP) {
        futures.addAll(
            agent.capture.submitAll(requests.subList(i, Math.min(requests.size(), i + GROUP))));
      }
      for (CompletableFuture<CaptureAck> f : futures) {
        CaptureService.await(f);
      }
      double rate = requests.size() / ((System.nanoTime() - start) / 1e9);
      rowsOut.addAll(agent.store.records(0, requests.size()));
      if (rowsOut.size() != requests.size()) {
        throw new IllegalStateException(
            "agent stored " + rowsOut.size() + " records, want " + requests.size());
      }
      return rate;
    }
  }

  private static double bulkImport(Path dir, Path xml, int records) throws Exception {
    try (Agent agent = Agent.start(dir)) {
      long start = System.nanoTime();
      ImportSummary summary =
          new BilibiliImporter(agent.capture).importFile(xml, "bench-room", ImportProgress.none());
      double rate = records / ((System.nanoTime() - start) / 1e9);
      if (summary.captured() != records) {
        throw new IllegalStateException(
            "import captured " + summary.captured() + ", want " + records);
      }
      return rate;
    }
  }

  private static double rawInsert(Path dir, List<StoredRecord> rows) throws Exception {
    try (Connection c = RawCommitLatency.connection(dir)) {
      c.setAutoCommit(false);
      long start = System.nanoTime();
      try (PreparedStatement ps = c.prepareStatement(RawCommitLatency.INSERT_RECORD)) {
        for (int i = 0; i < rows.size(); i += GROUP) {
          int end = Math.min(rows.size(), i + GROUP);
          for (StoredRecord r : rows.subList(i, end)) {
            ps.setLong(1, r.index());
            ps.setString(2, r.idempotencyKey());
            ps.setString(3, r.contentHash());
            ps.setBytes(4, r.canonical());
            ps.setBytes(5, r.leafHash());
            ps.setLong(6, r.capturedAt());
            ps.setLong(7, end);
            ps.addBatch();
          }
          ps.executeBatch();
          c.commit();
        }
      }
      return rows.size() / ((System.nanoTime() - start) / 1e9);
    }
  }

  private record Latency(double p50Ms, double p99Ms) {}

  /**
   * Single durable acks through the local API: with the benchmark's {@link LoopbackHttp} client
   * (the reported figure), with the JDK's {@code HttpClient}, and the HTTP stack's own round trip
   * (a {@code GET} of an unknown path, answered 404 without touching the capture path), each after
   * the warm-up; and the loopback client's first acks after the agent started ({@code cold}).
   */
  private record ApiLatency(
      Latency loopback,
      Latency cold,
      Latency jdkClient,
      Latency httpAlone,
      Latency direct,
      RawCommitLatency.Result floor) {}

  private static ApiLatency apiLatency(Path dir, int samples, int warmup) throws Exception {
    try (Agent agent = Agent.start(dir.resolve("api"));
        // Direct captures go to a store of their own: in the served agent's store they would fill
        // its WAL twice as fast and so double how often an ack pays for a WAL checkpoint.
        Agent directAgent = Agent.start(dir.resolve("direct"));
        IngestServer server =
            IngestServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                agent.capture,
                agent.store,
                Long.MAX_VALUE);
        LoopbackHttp loopback = new LoopbackHttp(server.address())) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      URI uri = URI.create("http://" + server.hostPort() + "/v1/danmaku");
      List<CaptureRequest> requests = requests(2 * (samples + warmup));
      long[] viaLoopback = new long[samples];
      long[] cold = new long[samples];
      long[] viaJdk = new long[samples];
      long[] alone = new long[samples];
      long[] direct = new long[samples];
      RawCommitLatency.Result floor;
      List<CaptureRequest> directRequests = requests(DIRECT_FIRST, samples + warmup);
      try (RawCommitLatency raw = RawCommitLatency.open(dir.resolve("raw"), samples)) {
        for (int i = 0; i < samples + warmup; i++) {
          long t0 = System.nanoTime();
          LoopbackHttp.Answer a = loopback.post("/v1/danmaku", body(requests.get(i)));
          long t = System.nanoTime() - t0;
          if (a.status() != 201) {
            throw new IllegalStateException("POST answered " + a.status() + ": " + a.body());
          }
          if (i < cold.length) {
            cold[i] = t;
          }
          int at = i - warmup;
          if (at >= 0) {
            viaLoopback[at] = t;
          }
          t0 = System.nanoTime();
          CaptureAck ack = directAgent.capture.capture(directRequests.get(i));
          t = System.nanoTime() - t0;
          if (ack.repeat()) {
            throw new IllegalStateException("direct capture " + i + " was taken for a repeat");
          }
          if (at >= 0) {
            direct[at] = t;
          }
          raw.commitBoth(i, requests.get(i).key().toString(), at);
        }
        floor = raw.result();
      }
      for (int i = 0; i < samples + warmup; i++) {
        HttpRequest request =
            HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body(requests.get(samples + warmup + i))))
                .build();
        long t0 = System.nanoTime();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        long t = System.nanoTime() - t0;
        if (response.statusCode() != 201) {
          throw new IllegalStateException(
              "POST answered " + response.statusCode() + ": " + response.body());
        }
        if (i >= warmup) {
          viaJdk[i - warmup] = t;
        }
      }
      // A connection of its own: the first one sat idle through the JDK client's loop, longer than
      // the server keeps an idle keep-alive connection open (30 s) when the machine is busy.
      try (LoopbackHttp fresh = new LoopbackHttp(server.address())) {
        for (int i = 0; i < samples + warmup; i++) {
          long t0 = System.nanoTime();
          LoopbackHttp.Answer a = fresh.get("/v1/no-such-route");
          long t = System.nanoTime() - t0;
          if (a.status() != 404) {
            throw new IllegalStateException("GET of an unknown path answered " + a.status());
          }
          if (i >= warmup) {
            alone[i - warmup] = t;
          }
        }
      }
      return new ApiLatency(
          percentiles(viaLoopback),
          percentiles(cold),
          percentiles(viaJdk),
          percentiles(alone),
          percentiles(direct),
          floor);
    }
  }

  private static String body(CaptureRequest r) {
    return "{\"idempotencyKey\":\""
        + r.key()
        + "\",\"room\":\""
        + r.room()
        + "\",\"user\":\""
        + r.user()
        + "\",\"text\":\""
        + r.text()
        + "\"}";
  }

  /**
   * One durable ack taken apart, each part measured in the same loop as the acks (one POST, one
   * direct capture, one raw single-row commit and one raw agent-shaped commit per iteration), so
   * every part sees the same disk and the same machine.
   */
  private static void printBreakdown(PrintStream out, ApiLatency apis) {
    RawCommitLatency.Result floor = apis.floor();
    out.printf(Locale.ROOT, "  where one ack's time goes (p50 / p99 ms, same loop):%n");
    row(out, "POST /v1/danmaku, the whole ack", apis.loopback());
    row(out, "CaptureService.capture, no HTTP", apis.direct());
    row(out, "HTTP alone (GET answered 404)", apis.httpAlone());
    row(out, "raw agent-shaped txn, all", percentiles(floor.agentShaped().total));
    row(out, "  its statements", percentiles(floor.agentShaped().statements));
    row(out, "  its COMMIT (WAL write + fsync)", percentiles(floor.agentShaped().commit));
    row(out, "raw one-row txn (" + BASELINE + "), all", percentiles(floor.oneRow().total));
    row(out, "  its statement", percentiles(floor.oneRow().statements));
    row(out, "  its COMMIT (WAL write + fsync)", percentiles(floor.oneRow().commit));
    Latency api = apis.loopback();
    Latency direct = apis.direct();
    Latency shaped = percentiles(floor.agentShaped().total);
    out.printf(
        Locale.ROOT,
        "  p50 differences: HTTP + JSON %.3f ms (ack - capture), agent work beside its SQL %.3f ms"
            + " (capture - raw agent-shaped txn)%n",
        api.p50Ms - direct.p50Ms,
        direct.p50Ms - shaped.p50Ms);
  }

  private static void row(PrintStream out, String what, Latency l) {
    out.printf(Locale.ROOT, "    %-40s %8.3f %8.3f%n", what, l.p50Ms, l.p99Ms);
  }

  private static Latency percentiles(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return new Latency(
        sorted[(int) (sorted.length * 0.50)] / 1e6,
        sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1e6);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static final String[] TEXTS = {
    "前方高能", "合影", "厉害了我的弹幕君！", "hhhhhhhhh", "233333", "表白 🎉", "<3 & >_<", "awsl"
  };

  private static List<CaptureRequest> requests(int n) {
    return requests(0, n);
  }

  /** {@code n} distinct captures, numbered from {@code first} (keys differ between numbers). */
  private static List<CaptureRequest> requests(int first, int n) {
    List<CaptureRequest> out = new ArrayList<>(n);
    for (int i = first; i < first + n; i++) {
      String user = "u" + Integer.toHexString(i % 997);
      IdempotencyKey key =
          new IdempotencyKey("bench-1", user, 1_700_000_000_000L + i, String.format("%016x", i));
      out.add(
          new CaptureRequest(
              key,
              "bench-room",
              user,
              TEXTS[i % TEXTS.length] + " #" + i,
              1000L * i,
              1 + i % 5,
              i % 0xFFFFFF,
              25));
    }
    return out;
  }

  private static void writeBilibiliXml(Path file, int n) throws IOException {
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?><i>\n");
    for (int i = 0; i < n; i++) {
      String text =
          TEXTS[i % TEXTS.length].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
      xml.append(
          String.format(
              Locale.ROOT,
              "<d p=\"%d.5,1,25,16777215,%d,0,%08x,%d\">%s #%d</d>%n",
              i % 600,
              1_484_219_280L + i,
              i % 997,
              2_839_373_425L + i,
              text,
              i));
    }
    xml.append("</i>\n");
    Files.writeString(file, xml, StandardCharsets.UTF_8);
  }
}
