package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.ingest.IngestBenchmark;
import picocli.CommandLine.Option;

/**
 * How long the sync server is warmed before the clock starts (docs/benchmarks.md, "e2e: warm-up"):
 * servers of their own on databases of their own, dropped before the measured server starts, until
 * the JIT settles.
 */
final class WarmUp {
  @Option(
      names = "--warm-up-records",
      defaultValue = "" + IngestBenchmark.Options.DEFAULT_WARM_UP_RECORDS,
      description =
          "the most records the warm-up servers (on databases of their own, dropped before the"
              + " clock starts) take from devices of their own; they stop sooner, after a round"
              + " of 100000 in which the JIT compiled on at most 10%% of a core; e2e's baselines"
              + " take as many of the measured rows into a table or stream of their own, at most"
              + " all of them (default ${DEFAULT-VALUE})")
  long records;
}
