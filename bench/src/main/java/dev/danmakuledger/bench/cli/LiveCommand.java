package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.link.LinkProfile;
import dev.danmakuledger.bench.live.LiveBenchmark;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench live}: see {@link LiveBenchmark}. */
@Command(
    name = "live",
    mixinStandardHelpOptions = true,
    description = {
      "Two sync-server instances in this JVM on one Redis and one database (embedded Redis and"
          + " an H2 server-mode file unless --redis/--jdbc are given): a"
          + " device (or --devices) posts to instance A, a viewer on instance B; latency from local ack to SSE"
          + " receipt next to a Redis PUBLISH->subscriber round trip in the same run. Reports the"
          + " offered and achieved rates; a run whose device fell behind (achieved < 99%% of"
          + " offered) measured its backlog, not the latency, and is marked not valid."
    })
final class LiveCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;
  @Mixin Output output;
  @Mixin Targets targets;

  @Option(
      names = "--rate",
      defaultValue = "1000",
      description = "messages/s over all devices (default 1000)")
  int rate;

  @Option(
      names = "--devices",
      defaultValue = "1",
      description =
          "devices sharing the rate, each with its own log and batches, all posting to instance A"
              + " (default 1)")
  int devices;

  @Option(
      names = "--duration",
      defaultValue = "20s",
      converter = DurationConverter.class,
      description = "how long the device posts (default 20s)")
  Duration duration;

  @Option(
      names = "--warm-up",
      defaultValue = "10s",
      converter = DurationConverter.OrZero.class,
      description =
          "the devices' shape first runs in rounds of this long, each on a room of its own,"
              + " untimed, until the JIT compiled on at most 10%% of a core over a round (at most"
              + " 24 rounds), so that the clock starts on compiled code; the warm-up's figures are"
              + " printed, not reported; 0s for none (default 10s)")
  Duration warmUp;

  @Option(
      names = "--linger",
      defaultValue = "50ms",
      split = ",",
      converter = DurationConverter.class,
      description =
          "the device sends a batch once its oldest pending capture waited this long; several"
              + " (comma-separated) run one after another (default 50ms, the default of edge-agent run)")
  List<Duration> lingers;

  @Option(
      names = "--link",
      description =
          "the devices reach instance A through one shaped link in this JVM (a venue's shared"
              + " uplink): loopback (the proxy, no limits), venue (20 Mbit/s, RTT 30 ms), 4g"
              + " (5 Mbit/s up, RTT 80 ms, drops) or satellite (2 Mbit/s, RTT 600 ms); the target"
              + " grows by the link's RTT (default: no proxy)")
  String link;

  @Override
  public Integer call() throws Exception {
    LiveBenchmark.Options o;
    try {
      o =
          new LiveBenchmark.Options(
              rate,
              devices,
              duration,
              warmUp,
              lingers,
              targets.redis,
              targets.jdbc,
              link == null ? null : LinkProfile.named(link));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    output.emit(System.out, LiveBenchmark.run(o, System.out));
    return ExitCodes.OK;
  }
}
