package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.ingest.IngestBenchmark;
import picocli.CommandLine.Option;

/**
 * How long the sync server is warmed before the clock starts (docs/benchmarks.md, "e2e: warm-up"):
 * a server of its own on a database of its own, dropped before the measured server starts.
 */
final class WarmUp {
  @Option(
      names = "--warm-up-records",
      defaultValue = "" + IngestBenchmark.Options.DEFAULT_WARM_UP_RECORDS,
      description =
          "records a warm-up server (on a database of its own, dropped before the clock starts)"
              + " takes from devices of its own; e2e's baselines take as many of the measured"
              + " rows into a table or stream of their own (default ${DEFAULT-VALUE})")
  long records;
}
