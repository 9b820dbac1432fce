package dev.danmakuledger.bench.redis;

import dev.danmakuledger.bench.ingest.RedisKeys;
import dev.danmakuledger.lua.AdmitItem;
import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.NeedSeedException;
import dev.danmakuledger.lua.RetryPolicy;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The Redis admit benchmark: keys admitted per second through the admit script runner ({@link
 * DedupeScripts#admit}, batches of 100/500/1000 keys of one room, 10% of each batch duplicates of
 * keys admitted before) next to the same keys written as raw pipelined {@code SET key value NX EX
 * ttl} ({@code redis-benchmark -P}-style, the seed design's fast path without a sequence number)
 * against the same Redis in the same run, with the same number of connections and threads. All keys
 * carry a unique run prefix and are deleted after each measured run.
 */
public final class RedisAdmitBenchmark {
  /** Name of the baseline in the result rows. */
  public static final String BASELINE = "redis-raw-set-nx";

  /** The seed design's pipelined rate (docs/benchmarks.md), printed for comparison. */
  public static final double SEED_PIPELINED_PER_SECOND = 68_500;

  private static final Duration TTL = Duration.ofMinutes(10);
  private static final String HASH =
      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

  /** One result row: ours against the baseline, {@code ratio = ours / baselineValue}. */
  public record Result(
      String benchmark,
      String metric,
      double ours,
      String baseline,
      double baselineValue,
      double ratio) {
    public Result {
      Objects.requireNonNull(benchmark, "benchmark");
      Objects.requireNonNull(metric, "metric");
      Objects.requireNonNull(baseline, "baseline");
    }
  }

  /**
   * What to run.
   *
   * @param redisUri a standalone Redis, e.g. {@code redis://127.0.0.1:6379}
   * @param batchSizes keys per admit call / per pipeline flush, each 1..10000
   * @param keysPerBatchSize keys offered per measured run of one batch size, >= the largest batch
   * @param threads concurrent callers, each with its own connection, 1..64
   * @param rooms rooms the batches rotate over, >= 1
   * @param repetitions measured runs per batch size, alternating baseline and ours; the rows carry
   *     the medians, 1..99
   */
  public record Options(
      String redisUri,
      List<Integer> batchSizes,
      int keysPerBatchSize,
      int threads,
      int rooms,
      int repetitions) {
    public Options {
      Objects.requireNonNull(redisUri, "redisUri");
      batchSizes = List.copyOf(batchSizes);
      for (int b : batchSizes) {
        if (b < 1 || b > DedupeScripts.MAX_ITEMS) {
          throw new IllegalArgumentException(
              "batch size: got " + b + ", want 1.." + DedupeScripts.MAX_ITEMS);
        }
        if (keysPerBatchSize < b) {
          throw new IllegalArgumentException(
              "keysPerBatchSize: got " + keysPerBatchSize + ", want >= batch size " + b);
        }
      }
      if (threads < 1 || threads > 64) {
        throw new IllegalArgumentException("threads: got " + threads + ", want 1..64");
      }
      if (rooms < 1) {
        throw new IllegalArgumentException("rooms: got " + rooms + ", want >= 1");
      }
      if (repetitions < 1 || repetitions > 99) {
        throw new IllegalArgumentException("repetitions: got " + repetitions + ", want 1..99");
      }
    }

    /**
     * Batches of 100, 500 and 1000; 200,000 keys per run; 4 threads; 16 rooms; median of 3 runs.
     */
    public static Options defaults(String redisUri) {
      return new Options(redisUri, List.of(100, 500, 1000), 200_000, 4, 16, 3);
    }
  }

  private RedisAdmitBenchmark() {}

  /** {@code bin/bench redis [redisUri]}: runs the defaults and prints the table. */
  public static void main(String[] args) throws Exception {
    String uri = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
    run(Options.defaults(uri), System.out);
  }

  /**
   * Runs every batch size (a warm-up, then the raw baseline and the runner, alternating), prints a
   * table to {@code out} and returns one row per batch size.
   */
  public static List<Result> run(Options options, PrintStream out) throws Exception {
    String runId = UUID.randomUUID().toString().substring(0, 8);
    String oursPrefix = "bench-" + runId;
    String rawPrefix = "bench-raw-" + runId;
    List<Result> results = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(options.threads());
    try {
      out.printf(
          Locale.ROOT,
          "Redis admit benchmark against %s: %d keys per run, %d threads, %d rooms,"
              + " 10%% duplicates, median of %d runs%n",
          options.redisUri(),
          options.keysPerBatchSize(),
          options.threads(),
          options.rooms(),
          options.repetitions());
      int round = 0;
      for (int batch : options.batchSizes()) {
        Workload warm =
            Workload.generate(
                Math.max(batch, options.keysPerBatchSize() / 2), batch, options, ++round);
        measureRaw(options, pool, warm, rawPrefix + "-w" + round);
        measureOurs(options, pool, warm, oursPrefix + "-w" + round);
        deleteRun(options, rawPrefix + "-w" + round, oursPrefix + "-w" + round);
        double[] raw = new double[options.repetitions()];
        double[] ours = new double[options.repetitions()];
        for (int rep = 0; rep < options.repetitions(); rep++) {
          Workload work = Workload.generate(options.keysPerBatchSize(), batch, options, ++round);
          raw[rep] = measureRaw(options, pool, work, rawPrefix + "-" + round);
          deleteRun(options, rawPrefix + "-" + round, null);
          ours[rep] = measureOurs(options, pool, work, oursPrefix + "-" + round);
          deleteRun(options, null, oursPrefix + "-" + round);
        }
        double rawMedian = median(raw);
        double oursMedian = median(ours);
        results.add(
            new Result(
                "redis-admit-batch-" + batch,
                "keys/s",
                oursMedian,
                BASELINE,
                rawMedian,
                oursMedian / rawMedian));
      }
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
      RedisKeys.deleteRooms(options.redisUri(), oursPrefix + "-");
      RedisKeys.deleteMatching(options.redisUri(), rawPrefix + "-*");
    }
    printTable(results, out);
    return results;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  private static void printTable(List<Result> results, PrintStream out) {
    out.printf(
        Locale.ROOT,
        "%-22s %-7s %14s %-18s %14s %8s %10s%n",
        "benchmark",
        "metric",
        "ours",
        "baseline",
        "baseline value",
        "ratio",
        "x seed");
    for (Result r : results) {
      out.printf(
          Locale.ROOT,
          "%-22s %-7s %14.0f %-18s %14.0f %8.3f %10.2f%n",
          r.benchmark(),
          r.metric(),
          r.ours(),
          r.baseline(),
          r.baselineValue(),
          r.ratio(),
          r.ours() / SEED_PIPELINED_PER_SECOND);
    }
  }

  /**
   * Pre-generated batches: batch {@code i} belongs to room {@code i % rooms}; 10% of its keys
   * repeat keys of earlier batches of the same room (so admit answers DUPLICATE, SET NX nil).
   */
  private record Workload(int batchSize, List<Batch> batches, int keyCount) {
    record Batch(int room, List<String> keys, List<Long> ids) {}

    static Workload generate(int keyCount, int batchSize, Options options, long seed) {
      Random random = new Random(seed);
      int batchCount = Math.max(1, keyCount / batchSize);
      List<List<String>> seenByRoom = new ArrayList<>();
      for (int r = 0; r < options.rooms(); r++) {
        seenByRoom.add(new ArrayList<>());
      }
      List<Batch> batches = new ArrayList<>(batchCount);
      long nextId = 1;
      int nextKey = 0;
      for (int i = 0; i < batchCount; i++) {
        int room = i % options.rooms();
        List<String> seen = seenByRoom.get(room);
        List<String> keys = new ArrayList<>(batchSize);
        List<Long> ids = new ArrayList<>(batchSize);
        int duplicates = seen.isEmpty() ? 0 : batchSize / 10;
        for (int k = 0; k < batchSize; k++) {
          String key;
          if (k < duplicates) {
            key = seen.get(random.nextInt(seen.size()));
          } else {
            key =
                String.format(
                    Locale.ROOT,
                    "dev-%03d:user-%05d:%013d:%016x",
                    nextKey % 997,
                    nextKey % 50_000,
                    1_764_000_000_000L + nextKey,
                    random.nextLong());
            nextKey++;
          }
          keys.add(key);
          ids.add(nextId++);
        }
        for (int k = duplicates; k < batchSize; k++) {
          seen.add(keys.get(k));
        }
        batches.add(new Batch(room, keys, ids));
      }
      return new Workload(batchSize, batches, batchCount * batchSize);
    }
  }

  private interface Worker {
    void run(int thread) throws Exception;
  }

  private static double timed(ExecutorService pool, int threads, int keys, Worker worker)
      throws Exception {
    List<Future<Object>> running = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      running.add(
          pool.submit(
              () -> {
                worker.run(thread);
                return null;
              }));
    }
    for (Future<Object> f : running) {
      f.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return keys / seconds;
  }

  private static double measureOurs(
      Options options, ExecutorService pool, Workload work, String roomPrefix) throws Exception {
    List<DedupeScripts> connections = new ArrayList<>();
    try {
      for (int t = 0; t < options.threads(); t++) {
        connections.add(DedupeScripts.standalone(options.redisUri(), RetryPolicy.defaults()));
      }
      for (int r = 0; r < options.rooms(); r++) {
        connections.get(0).seed(roomPrefix + "-" + r, 0);
      }
      List<List<AdmitItem>> prepared = new ArrayList<>();
      for (Workload.Batch b : work.batches()) {
        List<AdmitItem> items = new ArrayList<>(b.keys().size());
        for (int k = 0; k < b.keys().size(); k++) {
          items.add(new AdmitItem(b.keys().get(k), HASH, b.ids().get(k)));
        }
        prepared.add(items);
      }
      return timed(
          pool,
          options.threads(),
          work.keyCount(),
          thread -> {
            DedupeScripts scripts = connections.get(thread);
            for (int i = thread; i < prepared.size(); i += options.threads()) {
              String room = roomPrefix + "-" + work.batches().get(i).room();
              try {
                scripts.admit(room, prepared.get(i), TTL);
              } catch (NeedSeedException e) {
                throw new IllegalStateException("room " + room + " lost its seed mid-run", e);
              }
            }
          });
    } finally {
      connections.forEach(DedupeScripts::close);
    }
  }

  private static double measureRaw(
      Options options, ExecutorService pool, Workload work, String keyPrefix) throws Exception {
    RedisClient client = RedisClient.create(options.redisUri());
    List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    try {
      for (int t = 0; t < options.threads(); t++) {
        StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8);
        c.setAutoFlushCommands(false);
        connections.add(c);
      }
      List<List<String>> keys = new ArrayList<>();
      List<List<String>> values = new ArrayList<>();
      for (Workload.Batch b : work.batches()) {
        List<String> k = new ArrayList<>(b.keys().size());
        List<String> v = new ArrayList<>(b.keys().size());
        for (int i = 0; i < b.keys().size(); i++) {
          k.add(keyPrefix + "-" + b.room() + ":k:" + b.keys().get(i));
          v.add((i + 1) + "|" + b.ids().get(i) + "|" + HASH);
        }
        keys.add(k);
        values.add(v);
      }
      SetArgs nxEx = SetArgs.Builder.nx().ex(TTL.toSeconds());
      return timed(
          pool,
          options.threads(),
          work.keyCount(),
          thread -> {
            StatefulRedisConnection<String, String> c = connections.get(thread);
            RedisAsyncCommands<String, String> async = c.async();
            for (int i = thread; i < keys.size(); i += options.threads()) {
              List<String> k = keys.get(i);
              List<String> v = values.get(i);
              List<RedisFuture<String>> replies = new ArrayList<>(k.size());
              for (int j = 0; j < k.size(); j++) {
                replies.add(async.set(k.get(j), v.get(j), nxEx));
              }
              c.flushCommands();
              if (!LettuceFutures.awaitAll(
                  Duration.ofMinutes(1), replies.toArray(new RedisFuture<?>[0]))) {
                throw new IllegalStateException("pipelined SET NX EX did not finish in 1 minute");
              }
            }
          });
    } finally {
      connections.forEach(StatefulRedisConnection::close);
      client.shutdown();
    }
  }

  /**
   * Deletes the keys of one measured run (untimed), so that every run starts from the Redis the
   * previous one found: keys left behind would make later runs pay for a larger keyspace and its
   * incremental rehashing, and whichever side happened to run then would look slower.
   */
  private static void deleteRun(Options options, String rawPrefix, String oursPrefix) {
    if (rawPrefix != null) {
      RedisKeys.deleteMatching(options.redisUri(), rawPrefix + "-*");
    }
    if (oursPrefix != null) {
      RedisKeys.deleteRooms(options.redisUri(), oursPrefix + "-");
    }
  }
}
