package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.edge.EdgeCaptureBench;
import dev.danmakuledger.bench.ingest.Dirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench edge}: the edge capture benchmark ({@link EdgeCaptureBench}). */
@Command(
    name = "edge",
    mixinStandardHelpOptions = true,
    description = {
      "Agent bulk capture (Bloom + SQLite + Merkle + signature, durable) next to a raw"
          + " sqlite-jdbc batched insert of the same rows with the same durability, and the p99 of"
          + " one local ack."
    })
final class EdgeCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;
  @Mixin Output output;

  @Option(
      names = "--records",
      defaultValue = "20000",
      description = "records per repetition (default ${DEFAULT-VALUE})")
  int records;

  @Option(
      names = "--repetitions",
      defaultValue = "5",
      description = "repetitions, the median is reported (default ${DEFAULT-VALUE})")
  int repetitions;

  @Option(
      names = "--latency-samples",
      defaultValue = "2000",
      description = "single acks timed (default ${DEFAULT-VALUE})")
  int latencySamples;

  @Option(
      names = "--latency-warm-up",
      defaultValue = "" + EdgeCaptureBench.Settings.DEFAULT_LATENCY_WARM_UP,
      description =
          "untimed single acks (and single commits of the baseline) before the timed ones, as in"
              + " an agent that has been serving for a while (default ${DEFAULT-VALUE})")
  int latencyWarmUp;

  @Override
  public Integer call() throws Exception {
    EdgeCaptureBench.Settings s;
    try {
      s = new EdgeCaptureBench.Settings(records, repetitions, latencySamples, latencyWarmUp);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    Path work = Files.createTempDirectory("danmaku-bench-edge-");
    try {
      output.emit(System.out, EdgeCaptureBench.run(work, s, System.out));
    } finally {
      Dirs.deleteTree(work);
    }
    return ExitCodes.OK;
  }
}
