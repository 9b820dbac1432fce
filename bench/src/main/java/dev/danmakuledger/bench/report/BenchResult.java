package dev.danmakuledger.bench.report;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One row of a benchmark report: our figure next to a baseline measured in the same run.
 *
 * @param benchmark the benchmark ({@code edge}, {@code redis}, {@code e2e}, {@code proofs}, ...)
 * @param metric what is measured, with its unit ({@code records/s}, {@code keys/s}, {@code ms})
 * @param ours our figure, or {@code null} when it could not be measured
 * @param baseline what we compare against, named for what it is ({@code sqlite-raw-insert})
 * @param baselineValue the baseline's figure from the same run, or {@code null} if not measured
 * @param ratio {@code ours / baselineValue}, or {@code null} when either side is missing
 * @param p99Ms 99th percentile latency in milliseconds where the benchmark measures latency
 * @param note free text: parameters, or why a figure is missing
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BenchResult(
    String benchmark,
    String metric,
    Double ours,
    String baseline,
    Double baselineValue,
    Double ratio,
    Double p99Ms,
    String note) {

  public BenchResult {
    if (benchmark == null || benchmark.isBlank()) {
      throw new IllegalArgumentException("benchmark: got blank, want a name");
    }
    if (metric == null || metric.isBlank()) {
      throw new IllegalArgumentException("metric: got blank, want a unit such as records/s");
    }
  }

  /** A row whose ratio is computed from the two figures (higher is better for both). */
  public static BenchResult compared(
      String benchmark,
      String metric,
      double ours,
      String baseline,
      double baselineValue,
      Double p99Ms,
      String note) {
    Double ratio = baselineValue > 0 ? ours / baselineValue : null;
    return new BenchResult(benchmark, metric, ours, baseline, baselineValue, ratio, p99Ms, note);
  }

  /** A row for a baseline that could not be measured in this run; never a made-up number. */
  public static BenchResult notMeasured(
      String benchmark, String metric, double ours, String baseline, String why) {
    return new BenchResult(
        benchmark, metric, ours, baseline, null, null, null, "not measured: " + why);
  }
}
