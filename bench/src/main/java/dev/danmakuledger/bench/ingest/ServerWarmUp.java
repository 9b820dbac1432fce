package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;

/**
 * Warms this JVM's ingest path (server and HTTP stack) before a measured run, as on a server that
 * has been ingesting for a while (docs/benchmarks.md, "e2e: warm-up").
 *
 * <p>Simulated devices send batches to sync servers of their own on databases of their own, in
 * rounds of {@value #ROUND_RECORDS} records, each round from new devices into new rooms (so that
 * what a measured run does first, enrolling devices and seeding room counters, stays compiled in),
 * each round's batches prepared before they are sent and sent as the measured run sends them: by a
 * {@link DeviceSender} keeping the same window of batches in flight. One batch at a time would
 * leave the server's paths for batches in flight (a batch chained behind the one still held, a
 * batch sent again after a 409) cold, and the measured run would compile them, and deoptimize what
 * it compiled without them, on its clock.
 *
 * <p>The first round goes to a server that is stopped right after it, the other rounds to a second
 * one. Stopping a server loads classes the ingest path never uses (the shutdown paths of Jetty,
 * Netty and Lettuce, promises of other kinds), and HotSpot throws away code it compiled on the
 * assumption that they do not exist: loaded during the first round, before most of the compiling,
 * they no longer cost the measured run its compiled code when the second server stops.
 *
 * <p>Rounds go on until one of them finds the JIT settled (its compiler threads busy on at most
 * {@value CpuUse#SETTLED_JIT_SHARE} of a core) or the plan's records are sent; where the compiler
 * threads' CPU time cannot be read (no {@code /proc}), every record of the plan is sent. The last
 * server is then stopped, its database dropped and every round's Redis keys deleted, so the
 * measured server starts on an empty store, as the baselines' tables do, with the code the JIT
 * compiled. Each round's line says on how much of a core the JIT compiled.
 */
final class ServerWarmUp {
  /** Records per round, spread over the devices. */
  static final long ROUND_RECORDS = 100_000;

  /**
   * What to send.
   *
   * @param records the most records to send (fewer when the JIT settles first), 0 for none
   * @param batchSize records per batch, 1..10000
   * @param devices devices sending at once, 1..256
   * @param rooms rooms the messages spread over
   * @param duplicateShare share of each batch that retries earlier messages, 0..0.9
   * @param window the most batches a device keeps in flight, as in the measured run (at most what
   *     the server announces)
   */
  record Traffic(
      long records, int batchSize, int devices, int rooms, double duplicateShare, int window) {
    Traffic {
      if (records < 0) {
        throw new IllegalArgumentException("warm-up records: got " + records + ", want >= 0");
      }
      if (window < 1) {
        throw new IllegalArgumentException("warm-up window: got " + window + ", want >= 1");
      }
    }
  }

  /**
   * How the warm-up went.
   *
   * @param records records sent
   * @param rounds rounds run
   * @param seconds wall time of the rounds
   * @param lastJitShare the compiler threads' CPU time over wall time in the last round (1.0 is one
   *     core busy compiling), or NaN when there was none or it cannot be read ({@link CpuUse})
   */
  record Result(long records, int rounds, double seconds, double lastJitShare) {
    /** This warm-up followed by {@code later}: counts and times summed, the later's last round. */
    Result then(Result later) {
      return new Result(
          records + later.records,
          rounds + later.rounds,
          seconds + later.seconds,
          later.lastJitShare);
    }

    /**
     * For the log: e.g. "1,200,000 records in 12 rounds, 61.2 s; JIT on 2.1% of a core in the last
     * round".
     */
    String describe() {
      if (rounds == 0) {
        return "none";
      }
      String jit =
          Double.isNaN(lastJitShare)
              ? "compiler threads' CPU not readable"
              : String.format(
                  Locale.ROOT, "JIT on %.1f%% of a core in the last round", lastJitShare * 100);
      return String.format(
          Locale.ROOT, "%,d records in %d rounds, %.1f s; %s", records, rounds, seconds, jit);
    }
  }

  private ServerWarmUp() {}

  /**
   * Runs the warm-up.
   *
   * @param jdbcUrl the MariaDB/MySQL server of the measured run (a database of its own is created
   *     and dropped), or null for H2 under {@code dir}
   * @param redisUri the measured run's Redis; the warm-up's room names start with {@code
   *     roomPrefix}, and their keys are deleted afterwards
   * @param settings the measured server's settings, applied to the warm-up server's builder
   */
  static Result run(
      Traffic plan,
      String jdbcUrl,
      String redisUri,
      Path dir,
      String roomPrefix,
      UnaryOperator<ServerConfig.Builder> settings,
      String name,
      PrintStream log)
      throws Exception {
    Result done = new Result(0, 0, 0, Double.NaN);
    for (int server = 0;
        server < 2 && plan.records() - done.records() >= plan.devices();
        server++) {
      boolean last = server == 1;
      long left = plan.records() - done.records();
      Path serverDir = dir.resolve("server-" + server);
      String rooms = roomPrefix + server + "-";
      try (FreshDatabase db = FreshDatabase.create(jdbcUrl, serverDir);
          SyncServer s =
              SyncServer.start(settings.apply(db.serverOn(serverDir, redisUri)).build())) {
        done =
            done.then(
                rounds(
                    plan,
                    last ? left : Math.min(ROUND_RECORDS, left),
                    last,
                    s,
                    rooms,
                    name + ": warm-up server " + (server + 1),
                    log));
      } finally {
        RedisKeys.deleteRooms(redisUri, rooms);
      }
    }
    return done;
  }

  /**
   * Sends up to {@code records} to {@code server} in rounds, each logged after {@code label}; with
   * {@code untilSettled}, stops early after a round in which the JIT settled.
   */
  private static Result rounds(
      Traffic plan,
      long records,
      boolean untilSettled,
      SyncServer server,
      String roomPrefix,
      String label,
      PrintStream log)
      throws Exception {
    LedgerClient client = new LedgerClient(server.baseUri(), Duration.ofSeconds(60));
    SecureRandom random = new SecureRandom();
    long sent = 0;
    int rounds = 0;
    double share = Double.NaN;
    long started = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(plan.devices());
    try {
      while (sent < records && !(untilSettled && share <= CpuUse.SETTLED_JIT_SHARE)) {
        long perDevice = Math.max(1, Math.min(ROUND_RECORDS, records - sent) / plan.devices());
        CpuUse before = CpuUse.now();
        long t0 = System.nanoTime();
        round(plan, server, client, random, roomPrefix + rounds + "-", perDevice, pool);
        long nanos = System.nanoTime() - t0;
        share = CpuUse.now().roleShareSince(before, "JIT", nanos);
        sent += perDevice * plan.devices();
        rounds++;
        log.printf(
            Locale.ROOT,
            "%s, round %d: %,d records at %,.0f/s%s%n",
            label,
            rounds,
            perDevice * plan.devices(),
            perDevice * plan.devices() / (nanos / 1e9),
            Double.isNaN(share)
                ? ""
                : String.format(Locale.ROOT, ", JIT compiling on %.0f%% of a core", share * 100));
      }
    } finally {
      pool.shutdownNow();
    }
    return new Result(sent, rounds, (System.nanoTime() - started) / 1e9, share);
  }

  /**
   * One round: every device's batches are prepared first and then sent, all devices at once, as in
   * the measured run: code the timed run shares with the preparation (JSON, Base64, hashing) is
   * then compiled for both, and preparing the measured batches deoptimizes nothing the server runs.
   */
  private static void round(
      Traffic plan,
      SyncServer server,
      LedgerClient client,
      SecureRandom random,
      String roomPrefix,
      long perDevice,
      ExecutorService pool)
      throws Exception {
    List<String> rooms = MessageStream.rooms(roomPrefix, plan.rooms());
    List<SimulatedDevice> devices = new ArrayList<>();
    List<MessageStream> streams = new ArrayList<>();
    for (int d = 0; d < plan.devices(); d++) {
      SimulatedDevice device = SimulatedDevice.create(roomPrefix + "d" + d, random);
      LedgerClient.Reply<?> enrolled =
          client.enroll(device.deviceId(), device.publicKeyBase64(), server.enrollToken());
      if (!enrolled.ok()) {
        throw new IOException("warm-up enrolment refused: " + enrolled.code());
      }
      devices.add(device);
      streams.add(
          new MessageStream(
              device.deviceId(),
              rooms,
              plan.duplicateShare(),
              -d - 1,
              1_763_000_000_000L + d * 1_000_000L));
    }
    List<Deque<PreparedBatch>> prepared = new ArrayList<>();
    for (int d = 0; d < devices.size(); d++) {
      prepared.add(
          PreparedBatch.prepare(
              client, devices.get(d), streams.get(d), perDevice, plan.batchSize()));
    }
    List<Future<DeviceSender.Counts>> running = new ArrayList<>();
    DeviceSender.Sink discarded =
        new DeviceSender.Sink(
            Collections.synchronizedList(new ArrayList<>()),
            new Latencies(),
            GrowthWindows.of(0, 2, System.nanoTime()));
    for (int d = 0; d < devices.size(); d++) {
      SimulatedDevice device = devices.get(d);
      running.add(
          pool.submit(
              new DeviceSender(
                  device,
                  DeviceSender.Batches.prepared(prepared.get(d)),
                  client.withOwnConnections(),
                  Math.min(plan.window(), client.batchWindow(device.deviceId())),
                  plan.batchSize(),
                  perDevice,
                  Long.MAX_VALUE,
                  discarded)));
    }
    for (Future<DeviceSender.Counts> f : running) {
      f.get();
    }
  }
}
