package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.http.HttpLimits;
import dev.danmakuledger.server.ingest.StageTimes;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * {@code bin/bench e2e} (docs/benchmarks.md): full ingest over HTTP into the sync server, in this
 * JVM, on MariaDB (or H2) and Redis (or embedded Redis): simulated devices each send signed batches
 * of their device log in which a share of the records are retries. Then the same rows go, in the
 * same run and into the same database, through a raw batched INSERT, through the seed's per-message
 * path, and to NATS JetStream with {@code Nats-Msg-Id} de-duplication when a NATS server answers.
 *
 * <p>A run of at most {@value #PREPARED_RECORDS} records prepares every device's batches (records,
 * Merkle leaves, signed checkpoint, JSON body) before the clock starts, as the baselines get their
 * rows ready-made: the server is measured, not the devices' own work, which on a real deployment
 * runs on the devices ({@code bin/bench edge} measures it). Longer runs and {@code --duration} runs
 * build each batch as they go, on the same two cores as the server.
 */
public final class IngestBenchmark {
  /** Most records whose batches are prepared before the timed run (they are held in memory). */
  static final long PREPARED_RECORDS = 400_000;

  private IngestBenchmark() {}

  /**
   * What to run.
   *
   * @param records records to send in total (retries included); ignored when {@code duration} is
   *     set
   * @param duration run for this long instead of a count, or null
   * @param batchSize records per batch, 1..10000 (the server's default limit)
   * @param devices simulated devices, each with its own connection and thread, 1..256
   * @param rooms rooms the messages spread over, 1..10000
   * @param duplicateShare share of each batch that retries earlier messages, 0..0.9
   * @param seedMessages messages sent through the per-message baseline (it is slow), 0 to skip
   * @param redisUri a Redis for the server and the per-message baseline, or null for embedded
   * @param jdbcUrl a MariaDB/MySQL server URL (a fresh database is created), or null for H2
   * @param natsUrl the NATS server for the peer row
   * @param roomLog whether the server integrates room logs while ingesting
   * @param roomCheckpointInterval the server's {@code --room-checkpoint-interval}
   * @param warmUpRecords the most records the warm-up servers take before the measured one starts
   *     ({@link ServerWarmUp}), and the baselines' warm-up rows at most
   * @param window the most batches each device keeps in flight, 1..16, capped by the window the
   *     server announces (docs/architecture.md §5, "Batches in flight"); 1 waits for each reply
   *     before the next batch
   * @param newRooms whether the rooms are new when the clock starts (each room's first message is
   *     in the timed part); otherwise every room gets one message from a device of its own before
   *     the clock, as on a server whose rooms are live (docs/benchmarks.md, "e2e: ten thousand
   *     rooms")
   */
  public record Options(
      long records,
      Duration duration,
      int batchSize,
      int devices,
      int rooms,
      double duplicateShare,
      int seedMessages,
      String redisUri,
      String jdbcUrl,
      String natsUrl,
      boolean roomLog,
      Duration roomCheckpointInterval,
      long warmUpRecords,
      int window,
      boolean newRooms) {
    /** Batches each device keeps in flight by default: the server's default window. */
    public static final int DEFAULT_WINDOW = ServerConfig.DEFAULT_BATCH_WINDOW;

    /**
     * The most records the warm-up servers take, by default (docs/benchmarks.md, "e2e: warm-up");
     * the warm-up ends sooner, after a round in which the JIT settled ({@link ServerWarmUp}). On
     * two cores it settled after 600,000–1,000,000 records.
     */
    public static final long DEFAULT_WARM_UP_RECORDS = 2_000_000;

    /** Options with room log integration on at the server's default interval. */
    public Options(
        long records,
        Duration duration,
        int batchSize,
        int devices,
        int rooms,
        double duplicateShare,
        int seedMessages,
        String redisUri,
        String jdbcUrl,
        String natsUrl) {
      this(
          records,
          duration,
          batchSize,
          devices,
          rooms,
          duplicateShare,
          seedMessages,
          redisUri,
          jdbcUrl,
          natsUrl,
          true,
          ServerConfig.DEFAULT_ROOM_CHECKPOINT_INTERVAL,
          DEFAULT_WARM_UP_RECORDS,
          DEFAULT_WINDOW,
          false);
    }

    public Options {
      if (roomCheckpointInterval == null || roomCheckpointInterval.toMillis() < 1) {
        throw new IllegalArgumentException(
            "room checkpoint interval: got " + roomCheckpointInterval + ", want >= 1 ms");
      }
      if (duration == null && records < 1) {
        throw new IllegalArgumentException("records: got " + records + ", want >= 1");
      }
      if (duration != null && (duration.isNegative() || duration.isZero())) {
        throw new IllegalArgumentException("duration: got " + duration + ", want > 0");
      }
      if (batchSize < 1 || batchSize > ServerConfig.DEFAULT_MAX_RECORDS_PER_BATCH) {
        throw new IllegalArgumentException(
            "batch size: got "
                + batchSize
                + ", want 1.."
                + ServerConfig.DEFAULT_MAX_RECORDS_PER_BATCH);
      }
      if (devices < 1 || devices > 256) {
        throw new IllegalArgumentException("devices: got " + devices + ", want 1..256");
      }
      if (rooms < 1 || rooms > 10_000) {
        throw new IllegalArgumentException("rooms: got " + rooms + ", want 1..10000");
      }
      if (!(duplicateShare >= 0 && duplicateShare <= 0.9)) {
        throw new IllegalArgumentException(
            "duplicate share: got " + duplicateShare + ", want 0..0.9");
      }
      if (jdbcUrl != null) {
        FreshDatabase.requireServerUrl(jdbcUrl);
      }
      if (seedMessages < 0) {
        throw new IllegalArgumentException("seed messages: got " + seedMessages + ", want >= 0");
      }
      if (window < 1 || window > ServerConfig.MAX_BATCH_WINDOW) {
        throw new IllegalArgumentException(
            "window: got " + window + ", want 1.." + ServerConfig.MAX_BATCH_WINDOW);
      }
      if (warmUpRecords < 0) {
        throw new IllegalArgumentException("warm-up records: got " + warmUpRecords + ", want >= 0");
      }
    }
  }

  /**
   * The ledger's run and every baseline, and where it ran.
   *
   * @param stages the server's mean milliseconds per batch by pipeline stage during the measured
   *     run, e.g. {@code "parse 0.8, verify 3.1, ..."}
   * @param growth the ledger's rate per tenth of the records sent (empty below 200,000 records)
   * @param batchesPerTick the batches the server's ticks held on average during the measured run
   */
  public record Run(
      String target,
      Measured ours,
      List<Measured> baselines,
      long confirmed,
      long duplicates,
      String stages,
      List<GrowthWindow> growth,
      double batchesPerTick) {
    /** The baseline named {@code name} if it was measured in this run. */
    public java.util.Optional<Measured> baseline(String name) {
      return baselines.stream().filter(b -> b.measured() && b.name().equals(name)).findFirst();
    }
  }

  /** Runs everything and returns the measured paths; progress goes to {@code log}. */
  public static Run run(Options o, PrintStream log) throws Exception {
    String runId = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    return RunTarget.run(
        "e2e",
        o.redisUri(),
        o.jdbcUrl(),
        List.of("b" + runId + "-", SeedPerMessageBaseline.roomPrefix(runId)),
        log,
        (db, redisUri, tmp, target) -> runOn(o, db, redisUri, runId, tmp, target, log));
  }

  private static Run runOn(
      Options o,
      FreshDatabase db,
      String redisUri,
      String runId,
      Path tmp,
      String target,
      PrintStream log)
      throws Exception {
    List<String> rooms = MessageStream.rooms("b" + runId + "-r", o.rooms());
    HttpLimits limits = CrowdLimits.of(o.devices() * o.window());
    UnaryOperator<ServerConfig.Builder> settings =
        b ->
            b.roomLog(o.roomLog())
                .roomCheckpointInterval(o.roomCheckpointInterval())
                .httpLimits(limits)
                .batchWindow(Math.max(ServerConfig.DEFAULT_BATCH_WINDOW, o.window()));
    ServerWarmUp.Result warmedUp =
        ServerWarmUp.run(
            new ServerWarmUp.Traffic(
                o.warmUpRecords(),
                o.batchSize(),
                o.devices(),
                o.rooms(),
                o.duplicateShare(),
                o.window()),
            o.jdbcUrl(),
            redisUri,
            tmp.resolve("warm-up"),
            "b" + runId + "-w",
            settings,
            "e2e",
            log);
    log.println("e2e: warm-up on servers and databases of their own: " + warmedUp.describe());
    ServerConfig config = settings.apply(db.serverOn(tmp.resolve("server"), redisUri)).build();
    List<List<List<DanmakuRecord>>> sent = new ArrayList<>();
    Measured ours;
    String stages;
    double batchesPerTick;
    GrowthWindows growth;
    long confirmed = 0;
    long duplicates = 0;
    try (SyncServer server = SyncServer.start(config)) {
      LedgerClient client = new LedgerClient(server.baseUri(), Duration.ofSeconds(60));
      SecureRandom random = new SecureRandom();
      List<SimulatedDevice> devices = new ArrayList<>();
      List<MessageStream> streams = new ArrayList<>();
      for (int d = 0; d < o.devices(); d++) {
        SimulatedDevice device = SimulatedDevice.create("bench-" + runId + "-d" + d, random);
        LedgerClient.Reply<?> enrolled =
            client.enroll(device.deviceId(), device.publicKeyBase64(), server.enrollToken());
        if (!enrolled.ok()) {
          throw new IOException("enroll " + device.deviceId() + ": " + enrolled.code());
        }
        devices.add(device);
        streams.add(
            new MessageStream(
                device.deviceId(),
                rooms,
                o.duplicateShare(),
                d * 7919L + 1,
                1_764_000_000_000L + d * 100_000_000L));
        sent.add(new ArrayList<>());
      }
      if (!o.newRooms()) {
        RoomOpening.open(
            client, server, rooms, "bench-" + runId + "-open", o.batchSize(), random, log);
      }
      long perDevice = Math.max(1, o.records() / o.devices());
      boolean prepare = o.duration() == null && o.records() <= PREPARED_RECORDS;
      List<Deque<PreparedBatch>> prepared = new ArrayList<>();
      for (int d = 0; d < o.devices(); d++) {
        prepared.add(
            PreparedBatch.prepare(
                client, devices.get(d), streams.get(d), prepare ? perDevice : 0, o.batchSize()));
      }
      List<Integer> inFlight = new ArrayList<>();
      for (SimulatedDevice device : devices) {
        inFlight.add(windowOf(client, device, o.window()));
      }
      log.println(
          "e2e: each device keeps up to "
              + inFlight.stream().mapToInt(Integer::intValue).max().orElse(1)
              + " batches in flight (--window "
              + o.window()
              + ", the server announces "
              + client.batchWindow(devices.get(0).deviceId())
              + ")");
      long deadline =
          o.duration() == null ? Long.MAX_VALUE : System.nanoTime() + o.duration().toNanos();
      AtomicInteger threads = new AtomicInteger();
      ExecutorService pool =
          Executors.newFixedThreadPool(
              o.devices(), r -> new Thread(r, CpuUse.DEVICE_THREAD + threads.incrementAndGet()));
      List<Future<DeviceSender.Counts>> running = new ArrayList<>();
      Latencies all = new Latencies();
      StageTimes.Snapshot before = server.stageTimes();
      CpuUse cpuBefore = CpuUse.whenQuiet(CpuUse.SETTLE);
      long start = System.nanoTime();
      growth = GrowthWindows.of(o.duration() == null ? o.records() : 0, 10, start);
      try {
        for (int d = 0; d < o.devices(); d++) {
          SimulatedDevice device = devices.get(d);
          running.add(
              pool.submit(
                  new DeviceSender(
                      device,
                      prepare
                          ? DeviceSender.Batches.prepared(prepared.get(d))
                          : DeviceSender.Batches.built(client, device, streams.get(d)),
                      client.withOwnConnections(),
                      inFlight.get(d),
                      o.batchSize(),
                      o.duration() == null ? perDevice : Long.MAX_VALUE,
                      deadline,
                      new DeviceSender.Sink(sent.get(d), all, growth))));
        }
        DeviceSender.Counts counts = DeviceSender.Counts.NONE;
        for (Future<DeviceSender.Counts> f : running) {
          counts = counts.plus(f.get());
        }
        long records = counts.records();
        long resent = counts.resent();
        confirmed = counts.confirmed();
        duplicates = counts.duplicates();
        double seconds = (System.nanoTime() - start) / 1e9;
        CpuUse cpuAfter = CpuUse.now();
        String cpu = cpuAfter.perRecordSince(cpuBefore, records);
        ours =
            new Measured(
                "ours",
                records,
                seconds,
                all.percentileMs(99),
                confirmed
                    + " CONFIRMED, "
                    + duplicates
                    + " DUPLICATE"
                    + (resent == 0 ? "" : ", " + resent + " batches sent again after a 409")
                    + (prepare
                        ? ", batches signed and encoded before the clock started"
                        : ", batches built during the run")
                    + "; "
                    + cpu,
                CpuUse.whenQuiet(CpuUse.SETTLE).processMicrosSince(cpuBefore, records));
      } finally {
        pool.shutdownNow();
      }
      StageTimes.Snapshot measured = server.stageTimes().minus(before);
      stages = StageBreakdown.of(measured);
      batchesPerTick = measured.batchesPerTick();
      log.printf(
          Locale.ROOT,
          "e2e: ledger %,d records in %.1f s (%,.0f/s, p99 batch %.1f ms): %s%n",
          ours.records(),
          ours.seconds(),
          ours.perSecond(),
          ours.p99Ms(),
          ours.note());
      log.println("e2e: server ms: " + stages);
      for (GrowthWindow w : growth.windows()) {
        log.printf(
            Locale.ROOT, "e2e: records %,d..%,d: %,.0f/s%n", w.from(), w.to(), w.perSecond());
      }
    }
    List<Measured> baselines = new ArrayList<>();
    String rawName = db.embedded() ? "h2-raw-insert" : "mariadb-raw-insert";
    List<List<List<DanmakuRecord>>> warm = warmUpRows(sent, o);
    Measured raw = RawInsertBaseline.run(rawName, db.baselineUrl("raw-insert", true), sent, warm);
    log.printf(Locale.ROOT, "e2e: %s %,.0f/s (%s)%n", rawName, raw.perSecond(), raw.note());
    baselines.add(raw);
    if (o.seedMessages() > 0) {
      List<List<DanmakuRecord>> seed = firstMessages(sent, o.seedMessages());
      Measured s =
          SeedPerMessageBaseline.run(
              db.baselineUrl("seed-per-message", false), redisUri, seed, runId);
      log.printf(
          Locale.ROOT,
          "e2e: seed-per-message %,.0f/s on %,d messages%n",
          s.perSecond(),
          s.records());
      baselines.add(s);
    } else {
      baselines.add(Measured.notMeasured("seed-per-message", "skipped with --seed-messages 0"));
    }
    Measured nats = NatsJetStreamBaseline.run(o.natsUrl(), sent, warm, runId);
    log.printf(
        Locale.ROOT,
        "e2e: %s %s%n",
        NatsJetStreamBaseline.NAME,
        nats.measured()
            ? String.format(Locale.ROOT, "%,.0f/s (%s)", nats.perSecond(), nats.note())
            : nats.note());
    baselines.add(nats);
    return new Run(
        target, ours, baselines, confirmed, duplicates, stages, growth.windows(), batchesPerTick);
  }

  /**
   * The batches {@code device} keeps in flight: at most {@code most}, and no more than the server
   * announces (one when it announces none).
   */
  private static int windowOf(LedgerClient client, SimulatedDevice device, int most)
      throws IOException, InterruptedException {
    return Math.min(most, client.batchWindow(device.deviceId()));
  }

  /** Result rows: ours next to each baseline, ratio = ours / baseline (records/s). */
  public static List<BenchResult> results(Options o, Run run) {
    List<BenchResult> rows = new ArrayList<>();
    Measured ours = run.ours();
    String params =
        String.format(
            Locale.ROOT,
            "batch %d, %d devices, %d %s rooms, %.0f%% retries, %s",
            o.batchSize(),
            o.devices(),
            o.rooms(),
            o.newRooms() ? "new" : "open",
            o.duplicateShare() * 100,
            run.target());
    for (Measured b : run.baselines()) {
      if (!b.measured()) {
        rows.add(BenchResult.notMeasured("e2e", "records/s", ours.perSecond(), b.name(), b.note()));
        continue;
      }
      String scope =
          b.records() == ours.records()
              ? "same " + b.records() + " records"
              : "baseline measured on the first "
                  + b.records()
                  + " of "
                  + ours.records()
                  + " records";
      rows.add(
          BenchResult.compared(
              "e2e",
              "records/s",
              ours.perSecond(),
              b.name(),
              b.perSecond(),
              ours.p99Ms(),
              String.format(
                  Locale.ROOT,
                  "%s; %s; server ms: %s; ours: %s; baseline p99 %.2f ms (%s)",
                  params,
                  scope,
                  run.stages(),
                  ours.note(),
                  b.p99Ms(),
                  b.note())));
    }
    for (Measured b : run.baselines()) {
      if (b.measured() && b.name().equals("mariadb-raw-insert")) {
        rows.add(
            DatabaseWork.local(o.jdbcUrl())
                ? DatabaseWork.row(ours, b, Runtime.getRuntime().availableProcessors(), params)
                : DatabaseWork.onAnotherHost("e2e", b));
      }
    }
    List<GrowthWindow> g = run.growth();
    if (g.size() >= 2) {
      GrowthWindow first = g.get(0);
      GrowthWindow last = g.get(g.size() - 1);
      rows.add(
          BenchResult.compared(
              "e2e",
              "records/s, last window vs first",
              last.perSecond(),
              "ledger-first-window",
              first.perSecond(),
              null,
              String.format(
                  Locale.ROOT,
                  "%s; records %d..%d against %d..%d of the same run; target ratio >= 0.85",
                  params,
                  last.from(),
                  last.to(),
                  first.from(),
                  first.to())));
    }
    return rows;
  }

  /**
   * The baselines' warm-up rows: the first {@code o.warmUpRecords()} records of what was sent, in
   * the same batches, spread over the devices.
   */
  private static List<List<List<DanmakuRecord>>> warmUpRows(
      List<List<List<DanmakuRecord>>> sent, Options o) {
    long perDevice = o.warmUpRecords() / Math.max(1, sent.size());
    List<List<List<DanmakuRecord>>> out = new ArrayList<>();
    if (perDevice == 0) {
      return out;
    }
    for (List<List<DanmakuRecord>> batches : sent) {
      List<List<DanmakuRecord>> mine = new ArrayList<>();
      long n = 0;
      for (List<DanmakuRecord> b : batches) {
        if (n >= perDevice) {
          break;
        }
        mine.add(b);
        n += b.size();
      }
      out.add(mine);
    }
    return out;
  }

  private static List<List<DanmakuRecord>> firstMessages(
      List<List<List<DanmakuRecord>>> sent, int total) {
    List<List<DanmakuRecord>> out = new ArrayList<>();
    int per = Math.max(1, total / sent.size());
    for (List<List<DanmakuRecord>> batches : sent) {
      List<DanmakuRecord> mine = new ArrayList<>();
      for (List<DanmakuRecord> b : batches) {
        for (DanmakuRecord r : b) {
          if (mine.size() < per) {
            mine.add(r);
          }
        }
      }
      out.add(mine);
    }
    return out;
  }
}
