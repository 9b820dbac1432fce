package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.redis.RedisAdmitBenchmark;
import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench redis}: the Redis admit-script benchmark ({@link RedisAdmitBenchmark}). */
@Command(
    name = "redis",
    mixinStandardHelpOptions = true,
    description = {
      "Keys admitted per second through the admit Lua script runner next to raw pipelined"
          + " SET NX EX of the same keys against the same Redis in the same run."
    })
final class RedisCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;
  @Mixin Output output;

  @Option(
      names = "--redis",
      paramLabel = "URI",
      description = "Redis, e.g. redis://127.0.0.1:6379 (default: an embedded redis-server)")
  String redis;

  @Option(
      names = "--batch-size",
      split = ",",
      defaultValue = "100,500,1000",
      description = "keys per admit call (default ${DEFAULT-VALUE})")
  List<Integer> batchSizes;

  @Option(
      names = "--keys",
      defaultValue = "200000",
      description = "keys per batch size (default ${DEFAULT-VALUE})")
  int keys;

  @Option(
      names = "--repetitions",
      defaultValue = "3",
      description = "measured runs per batch size, the rows carry medians (default 3)")
  int repetitions;

  @Option(names = "--threads", defaultValue = "4", description = "callers (default 4)")
  int threads;

  @Option(names = "--rooms", defaultValue = "16", description = "rooms (default 16)")
  int rooms;

  @Override
  public Integer call() throws Exception {
    EmbeddedRedis embedded = null;
    String uri = redis;
    try {
      if (uri == null) {
        embedded = EmbeddedRedis.start();
        uri = embedded.uri();
      }
      RedisAdmitBenchmark.Options o;
      try {
        o = new RedisAdmitBenchmark.Options(uri, batchSizes, keys, threads, rooms, repetitions);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
      }
      List<BenchResult> rows = new ArrayList<>();
      for (RedisAdmitBenchmark.Result r : RedisAdmitBenchmark.run(o, System.out)) {
        rows.add(
            BenchResult.compared(
                "redis",
                r.metric(),
                r.ours(),
                r.baseline(),
                r.baselineValue(),
                null,
                String.format(
                    Locale.ROOT,
                    "%s; median of %d; %d threads, %d rooms, 10%% duplicates, %s; %.2fx the seed's %,.0f/s",
                    r.benchmark(),
                    repetitions,
                    threads,
                    rooms,
                    redis == null ? "embedded Redis" : redis,
                    r.ours() / RedisAdmitBenchmark.SEED_PIPELINED_PER_SECOND,
                    RedisAdmitBenchmark.SEED_PIPELINED_PER_SECOND)));
      }
      output.emit(System.out, rows);
      return ExitCodes.OK;
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }
}
