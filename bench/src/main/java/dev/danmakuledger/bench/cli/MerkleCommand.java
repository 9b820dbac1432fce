package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.merkle.MerkleBenchmarks;
import dev.danmakuledger.bench.report.BenchResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/bench merkle}: the JMH benchmarks of {@link MerkleBenchmarks} through the JMH Runner
 * API, each rate next to the raw SHA-256 rate of the same run.
 */
@Command(
    name = "merkle",
    mixinStandardHelpOptions = true,
    description = {
      "JMH: merkle append and proof verification next to one raw SHA-256 of a 65-byte node."
          + " Short settings by default; raise them for publishable figures."
    })
final class MerkleCommand implements Callable<Integer> {
  static final String BASELINE = "raw-sha256-65B";

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;
  @Mixin Output output;

  @Option(names = "--forks", defaultValue = "1", description = "JMH forks (default 1)")
  int forks;

  @Option(names = "--warmups", defaultValue = "1", description = "warm-up iterations (default 1)")
  int warmups;

  @Option(
      names = "--iterations",
      defaultValue = "2",
      description = "measurement iterations (default 2)")
  int iterations;

  @Option(
      names = "--seconds",
      defaultValue = "1",
      description = "seconds per iteration (default 1)")
  int seconds;

  @Override
  public Integer call() throws Exception {
    if (forks < 0 || warmups < 0 || iterations < 1 || seconds < 1) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(),
          "got forks "
              + forks
              + ", warmups "
              + warmups
              + ", iterations "
              + iterations
              + ", seconds "
              + seconds
              + "; want forks >= 0, warmups >= 0, iterations >= 1, seconds >= 1");
    }
    Collection<RunResult> results =
        new Runner(
                new OptionsBuilder()
                    .include(MerkleBenchmarks.class.getName() + "\\.")
                    .forks(forks)
                    .warmupIterations(warmups)
                    .warmupTime(TimeValue.seconds(seconds))
                    .measurementIterations(iterations)
                    .measurementTime(TimeValue.seconds(seconds))
                    .build())
            .run();
    output.emit(System.out, rows(results));
    return ExitCodes.OK;
  }

  static List<BenchResult> rows(Collection<RunResult> results) {
    double sha = Double.NaN;
    for (RunResult r : results) {
      if (r.getParams().getBenchmark().endsWith(".rawSha256")) {
        sha = r.getPrimaryResult().getScore();
      }
    }
    List<BenchResult> rows = new ArrayList<>();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      name = name.substring(name.lastIndexOf('.') + 1);
      if (name.equals("rawSha256")) {
        continue;
      }
      double score = r.getPrimaryResult().getScore();
      double error = r.getPrimaryResult().getScoreError();
      String note =
          String.format(
              Locale.ROOT,
              "%s, %s; %.2f SHA-256 per op",
              name,
              Double.isNaN(error)
                  ? "too few iterations for an error bound"
                  : String.format(Locale.ROOT, "+/- %.0f (99.9%%)", error),
              sha / score);
      rows.add(
          Double.isNaN(sha)
              ? BenchResult.notMeasured("merkle", "ops/s", score, BASELINE, "rawSha256 did not run")
              : BenchResult.compared("merkle", "ops/s", score, BASELINE, sha, null, note));
    }
    return rows;
  }
}
