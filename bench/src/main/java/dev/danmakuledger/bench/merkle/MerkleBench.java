package dev.danmakuledger.bench.merkle;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link MerkleBenchmarks} in one JMH run and prints each rate next to the raw SHA-256 rate
 * measured in that same run, as "SHA-256 equivalents" per operation.
 *
 * <p>Usage: {@code MerkleBench [iterationSeconds]} (default 2).
 */
public final class MerkleBench {
  private MerkleBench() {}

  public static void main(String[] args) throws RunnerException {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    Options opts =
        new OptionsBuilder()
            .include(MerkleBenchmarks.class.getName() + "\\.")
            .forks(1)
            .warmupIterations(2)
            .warmupTime(TimeValue.seconds(seconds))
            .measurementIterations(3)
            .measurementTime(TimeValue.seconds(seconds))
            .build();
    Collection<RunResult> results = new Runner(opts).run();
    System.out.print(table(results));
  }

  static String table(Collection<RunResult> results) {
    double sha = Double.NaN;
    List<String[]> rows = new ArrayList<>();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      name = name.substring(name.lastIndexOf('.') + 1);
      double score = r.getPrimaryResult().getScore();
      double error = r.getPrimaryResult().getScoreError();
      if (name.equals("rawSha256")) {
        sha = score;
      }
      rows.add(new String[] {name, String.valueOf(score), String.valueOf(error)});
    }
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            "%n%-20s %16s %12s %18s%n", "benchmark", "ops/s", "+/- (99.9%)", "SHA-256 per op"));
    for (String[] row : rows) {
      double score = Double.parseDouble(row[1]);
      sb.append(
          String.format(
              "%-20s %,16.0f %,12.0f %18.2f%n",
              row[0], score, Double.parseDouble(row[2]), sha / score));
    }
    return sb.toString();
  }
}
