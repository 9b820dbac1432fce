package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.bench.link.LinkProfile;
import dev.danmakuledger.bench.link.LinkProxy;
import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.ingest.StageTimes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/bench backlog} (docs/benchmarks.md): one device that captured N messages while offline
 * drains them into the sync server with the real {@code Syncer} (the {@code sync --once} path) in a
 * child JVM of its own ({@link BacklogAgent}), the server in this JVM on the given Redis and
 * database. Baseline, in the same run and database: the same rows as batched multi-row INSERTs over
 * one connection. Reports both processes' peak heap and the agent's {@code -Xmx}.
 *
 * <p>Over a shaped link ({@link LinkProxy}) the baselines are the link's capacity at the bytes a
 * record that crossed it, and a second device drained in the same run over the same link by the
 * agent before gzip and batches in flight (window 1, plain JSON; docs/sync.md, "Batches in
 * flight").
 */
public final class BacklogBenchmark {
  /** Name of the baseline row. */
  public static final String BASELINE_MARIADB = "mariadb-raw-insert-1conn";

  /** Rows per transaction of the baseline: as many as the agent's backlog batches carry. */
  private static final int BASELINE_BATCH = SyncSettings.DEFAULT_BACKLOG_BATCH_SIZE;

  /**
   * Devices that warm the server up at once: the drained device's batches of 1,000 run the same
   * code, and two keep both cores busy so the warm-up ends sooner.
   */
  private static final int WARM_UP_DEVICES = 2;

  private BacklogBenchmark() {}

  /**
   * What to run.
   *
   * @param records messages the device captured, 1..10,000,000
   * @param rooms rooms they spread over, 1..10,000
   * @param agentXmx the agent JVM's {@code -Xmx}, e.g. {@code 512m}
   * @param redisUri a Redis, or null for embedded
   * @param jdbcUrl a MariaDB/MySQL server URL (a fresh database is created), or null for H2
   * @param warmUpRecords the most records the warm-up servers take before the measured one starts
   *     ({@link ServerWarmUp}): the device comes back to a server that has been running
   * @param link the link between device and server ({@link LinkProxy}), or null for loopback
   *     without a proxy
   * @param window batches the agent keeps in flight, 1..{@value SyncSettings#MAX_WINDOW} (the
   *     server under test holds at least as many)
   */
  public record Options(
      int records,
      int rooms,
      String agentXmx,
      String redisUri,
      String jdbcUrl,
      long warmUpRecords,
      LinkProfile link,
      int window) {
    public Options {
      if (window < 1 || window > SyncSettings.MAX_WINDOW) {
        throw new IllegalArgumentException(
            "window: got " + window + ", want 1.." + SyncSettings.MAX_WINDOW);
      }
      if (records < 1 || records > 10_000_000) {
        throw new IllegalArgumentException("records: got " + records + ", want 1..10000000");
      }
      if (rooms < 1 || rooms > 10_000) {
        throw new IllegalArgumentException("rooms: got " + rooms + ", want 1..10000");
      }
      if (agentXmx == null || !agentXmx.matches("[1-9][0-9]*[mMgG]")) {
        throw new IllegalArgumentException("agent -Xmx: got " + agentXmx + ", want e.g. 512m");
      }
      if (jdbcUrl != null) {
        FreshDatabase.requireServerUrl(jdbcUrl);
      }
      if (warmUpRecords < 0) {
        throw new IllegalArgumentException("warm-up records: got " + warmUpRecords + ", want >= 0");
      }
    }
  }

  /** Runs the drain and the baseline; progress goes to {@code log}. */
  public static List<BenchResult> run(Options o, PrintStream log) throws Exception {
    String runId = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    return RunTarget.run(
        "backlog",
        o.redisUri(),
        o.jdbcUrl(),
        List.of("k" + runId + "-"),
        log,
        (db, redisUri, tmp, target) -> runOn(o, db, redisUri, runId, tmp, target, log));
  }

  private static List<BenchResult> runOn(
      Options o,
      FreshDatabase db,
      String redisUri,
      String runId,
      Path tmp,
      String target,
      PrintStream log)
      throws Exception {
    List<String> rooms = MessageStream.rooms("k" + runId + "-r", o.rooms());
    Path agentDir = tmp.resolve("agent");
    ServerWarmUp.Result warmedUp =
        ServerWarmUp.run(
            new ServerWarmUp.Traffic(
                o.warmUpRecords(),
                ServerConfig.DEFAULT_MAX_RECORDS_PER_BATCH,
                WARM_UP_DEVICES,
                o.rooms(),
                0,
                o.window()),
            o.jdbcUrl(),
            redisUri,
            tmp.resolve("warm-up"),
            "k" + runId + "-w",
            b -> b,
            "backlog",
            log);
    log.println("backlog: warm-up on servers and databases of their own: " + warmedUp.describe());
    ServerConfig config =
        db.serverOn(tmp.resolve("server"), redisUri)
            .batchWindow(Math.max(ServerConfig.DEFAULT_BATCH_WINDOW, o.window()))
            .build();
    if (o.link() != null) {
      return overLink(o, config, runId, rooms, tmp, log);
    }
    String[] result;
    String stages;
    long serverPeak;
    Map<String, Double> processMicros;
    String cpu;
    try (SyncServer server = SyncServer.start(config)) {
      URI serverUri = server.baseUri();
      System.gc();
      BacklogAgent.resetHeapPeaks();
      StageTimes.Snapshot before = server.stageTimes();
      CpuUse cpuBefore = CpuUse.whenQuiet(CpuUse.SETTLE);
      result =
          agent(
              o,
              agentDir,
              "backlog-" + runId,
              serverUri,
              server.enrollToken(),
              rooms,
              tmp.resolve("agent.log"),
              o.window(),
              true);
      long sent = Long.parseLong(result[1]);
      CpuUse cpuAfter = CpuUse.whenQuiet(CpuUse.SETTLE);
      processMicros = cpuAfter.processMicrosSince(cpuBefore, sent);
      cpu = cpuAfter.perRecordSince(cpuBefore, sent) + agentCpu(result, sent);
      serverPeak = BacklogAgent.heapPeak();
      stages = StageBreakdown.of(server.stageTimes().minus(before));
    }
    long records = Long.parseLong(result[1]);
    double seconds = Double.parseDouble(result[2]);
    long batches = Long.parseLong(result[3]);
    long agentPeak = Long.parseLong(result[4]);
    double ours = records / seconds;
    log.printf(
        Locale.ROOT,
        "backlog: drained %,d records in %.1f s (%,.0f/s) in %d batches; server ms per batch: %s;"
            + " %s%n",
        records,
        seconds,
        ours,
        batches,
        stages,
        cpu);
    List<List<DanmakuRecord>> batchesOfRows = rows(agentDir, BASELINE_BATCH);
    String name = db.embedded() ? "h2-raw-insert-1conn" : BASELINE_MARIADB;
    Measured raw =
        RawInsertBaseline.run(
            name, db.baselineUrl("raw-insert", true), List.of(batchesOfRows), List.of());
    log.printf(Locale.ROOT, "backlog: %s %,.0f/s (%s)%n", name, raw.perSecond(), raw.note());
    String note =
        String.format(
            Locale.ROOT,
            "1 device, %d records over %d rooms, %d batches (agent's backlog batch size), %s;"
                + " agent peak heap %.0f MiB (-Xmx%s), server peak heap %.0f MiB (-Xmx%.0fm);"
                + " server ms/batch: %s; ours: %s (the bench JVM runs the server); baseline %s in"
                + " batches of %d",
            records,
            o.rooms(),
            batches,
            target,
            agentPeak / 1048576.0,
            o.agentXmx(),
            serverPeak / 1048576.0,
            Runtime.getRuntime().maxMemory() / 1048576.0,
            stages,
            cpu,
            raw.note(),
            BASELINE_BATCH);
    BenchResult rate =
        BenchResult.compared("backlog", "records/s", ours, name, raw.perSecond(), null, note);
    Measured drained = new Measured("ours", records, seconds, Double.NaN, "", processMicros);
    String params = String.format(Locale.ROOT, "1 device, %d records, %s", records, target);
    if (db.embedded()) {
      return List.of(rate);
    }
    return List.of(
        rate,
        DatabaseWork.local(o.jdbcUrl())
            ? DatabaseWork.row("backlog", drained, raw, params)
            : DatabaseWork.onAnotherHost("backlog", raw));
  }

  /** Name of the baseline of a drain over a link: the agent before gzip and batches in flight. */
  public static final String BASELINE_LINK = "agent-plain-window-1";

  /**
   * Drains a backlog over {@code o.link()} twice on one server, each device through a link of its
   * own: with {@code o.window()} batches in flight and gzip (ours), then, as the same-run baseline,
   * a second device with one batch in flight and plain JSON (the agent before both). Rows: ours
   * against the link's capacity at our bytes a record, and ours against the baseline.
   */
  private static List<BenchResult> overLink(
      Options o, ServerConfig config, String runId, List<String> rooms, Path tmp, PrintStream log)
      throws Exception {
    try (SyncServer server = SyncServer.start(config)) {
      Drain ours = drain(o, server, runId, rooms, tmp, "ours", o.window(), true, log);
      Drain baseline = drain(o, server, runId, rooms, tmp, "baseline", 1, false, log);
      double capacity = ours.capacity();
      String note =
          String.format(
              Locale.ROOT,
              "1 device, %d records, link %s; ours: window %d, gzip of the binary body where the"
                  + " server takes it: %s; baseline %s (window 1, plain JSON, same link, same"
                  + " server, same run): %s; link capacity at our bytes"
                  + " a record %,.0f records/s, at the baseline's %,.0f",
              ours.records(),
              o.link().describe(),
              o.window(),
              ours.describe(),
              BASELINE_LINK,
              baseline.describe(),
              capacity,
              baseline.capacity());
      log.println("backlog: " + note);
      return List.of(
          BenchResult.compared(
              "backlog-" + o.link().name(),
              "records/s",
              ours.perSecond(),
              "link-capacity",
              Double.isInfinite(capacity) ? Double.NaN : capacity,
              null,
              note),
          BenchResult.compared(
              "backlog-" + o.link().name(),
              "records/s",
              ours.perSecond(),
              BASELINE_LINK,
              baseline.perSecond(),
              null,
              note));
    }
  }

  private static Drain drain(
      Options o,
      SyncServer server,
      String runId,
      List<String> rooms,
      Path tmp,
      String name,
      int window,
      boolean compress,
      PrintStream log)
      throws Exception {
    URI uri = server.baseUri();
    StageTimes.Snapshot before = server.stageTimes();
    try (LinkProxy proxy =
        new LinkProxy(new InetSocketAddress(uri.getHost(), uri.getPort()), o.link(), 1)) {
      String[] result =
          agent(
              o,
              tmp.resolve("agent-" + name),
              "backlog-" + runId + "-" + name,
              URI.create("http://127.0.0.1:" + proxy.port()),
              server.enrollToken(),
              rooms,
              tmp.resolve("agent-" + name + ".log"),
              window,
              compress);
      long records = Long.parseLong(result[1]);
      Drain d =
          new Drain(
              o.link(),
              records,
              Double.parseDouble(result[2]),
              Long.parseLong(result[3]),
              proxy.bytesUp(),
              proxy.bytesDown(),
              proxy.drops(),
              proxy.upUsage(),
              StageBreakdown.of(server.stageTimes().minus(before)),
              agentCpu(result, records));
      log.printf(Locale.ROOT, "backlog: %s: %s%n", name, d.describe());
      return d;
    }
  }

  /**
   * One drain over a link: what went over it (the enrolment's few hundred bytes included) and the
   * link's capacity at those bytes a record.
   */
  private record Drain(
      LinkProfile link,
      long records,
      double seconds,
      long batches,
      long bytesUp,
      long bytesDown,
      long drops,
      LinkProxy.Usage up,
      String stages,
      String cpu) {
    double perSecond() {
      return records / seconds;
    }

    double capacity() {
      double upPerRecord = (double) bytesUp / records;
      double downPerRecord = (double) bytesDown / records;
      return Math.min(
          link.upBytesPerSecond() == 0
              ? Double.POSITIVE_INFINITY
              : link.upBytesPerSecond() / upPerRecord,
          link.downBytesPerSecond() == 0
              ? Double.POSITIVE_INFINITY
              : link.downBytesPerSecond() / downPerRecord);
    }

    String describe() {
      return String.format(
          Locale.ROOT,
          "%,.0f records/s (%d records in %.1f s, %d batches); on the wire %.1f bytes a record up,"
              + " %.1f down (%,d and %,d bytes); %d drops; %.2f of the link's capacity at these"
              + " bytes a record (%,.0f records/s); uplink busy %.2f of %.1f s from its first byte"
              + " to its last (idle %.1f s, %d pauses of 20 ms or more, the longest %.0f ms);"
              + " server ms/batch: %s%s",
          perSecond(),
          records,
          seconds,
          batches,
          (double) bytesUp / records,
          (double) bytesDown / records,
          bytesUp,
          bytesDown,
          drops,
          perSecond() / capacity(),
          capacity(),
          up.busy(),
          up.spanNanos() / 1e9,
          up.idleNanos() / 1e9,
          up.pauses(),
          up.longestPauseNanos() / 1e6,
          stages,
          cpu);
    }
  }

  private static String[] agent(
      Options o,
      Path dir,
      String deviceId,
      URI serverUri,
      String enrollToken,
      List<String> rooms,
      Path logFile,
      int window,
      boolean compress)
      throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command =
        List.of(
            java.toString(),
            "-Xmx" + o.agentXmx(),
            "-cp",
            System.getProperty("java.class.path"),
            BacklogAgent.class.getName(),
            dir.toString(),
            deviceId,
            serverUri.toString(),
            enrollToken,
            Integer.toString(o.records()),
            String.join(",", rooms),
            Integer.toString(window),
            Boolean.toString(compress));
    Process p =
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .start();
    String line = null;
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String l = out.readLine(); l != null; l = out.readLine()) {
        if (l.startsWith(BacklogAgent.RESULT + " ")) {
          line = l;
        }
      }
    } finally {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    if (p.exitValue() != 0 || line == null) {
      String tail = Files.exists(logFile) ? Files.readString(logFile) : "";
      if (tail.length() > 2000) {
        tail = tail.substring(tail.length() - 2000);
      }
      throw new IOException("backlog agent exited " + p.exitValue() + " without a result: " + tail);
    }
    String[] parts = line.split(" ");
    if (parts.length != 7) {
      throw new IOException("backlog agent: got '" + line + "', want 7 fields");
    }
    return parts;
  }

  /**
   * The agent process's CPU during the drain per record, from its result line, e.g. {@code ", agent
   * JVM 11.2 (JIT 3.1)"}; empty where it could not be read.
   */
  static String agentCpu(String[] result, long records) {
    long cpu = Long.parseLong(result[5]);
    long jit = Long.parseLong(result[6]);
    if (cpu < 0 || records <= 0) {
      return "";
    }
    String out = String.format(Locale.ROOT, ", agent JVM %.1f", cpu / 1e3 / records);
    return jit < 0 ? out : out + String.format(Locale.ROOT, " (JIT %.1f)", jit / 1e3 / records);
  }

  /** The device's records as rows, in log order, in batches of {@code batch}. */
  private static List<List<DanmakuRecord>> rows(Path agentDir, int batch) throws IOException {
    List<List<DanmakuRecord>> out = new ArrayList<>();
    try (EdgeStore store = EdgeStore.openReadOnly(EdgeStore.fileIn(agentDir))) {
      long size = store.logState().size();
      for (long from = 0; from < size; from += batch) {
        List<DanmakuRecord> rows = new ArrayList<>(batch);
        for (StoredRecord r : store.records(from, (int) Math.min(batch, size - from))) {
          rows.add(CanonicalRecord.decode(r.canonical()));
        }
        out.add(rows);
      }
    }
    return out;
  }
}
