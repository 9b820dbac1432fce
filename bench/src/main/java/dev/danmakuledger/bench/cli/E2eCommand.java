package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.ingest.GrowthPlot;
import dev.danmakuledger.bench.ingest.IngestBenchmark;
import dev.danmakuledger.bench.ingest.ThroughputPlot;
import dev.danmakuledger.bench.report.BenchResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench e2e}: see {@link IngestBenchmark}. */
@Command(
    name = "e2e",
    mixinStandardHelpOptions = true,
    description = {
      "Full ingest over HTTP into the sync server (in this JVM) next to, in the same run and the"
          + " same database: a raw batched INSERT of the same rows, the seed's per-message path,"
          + " and NATS JetStream with Nats-Msg-Id dedupe (when a NATS server answers)."
    })
final class E2eCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;
  @Mixin Output output;
  @Mixin Targets targets;
  @Mixin WarmUp warmUp;

  @Option(
      names = "--records",
      defaultValue = "100000",
      description = "records to send, retries included (default ${DEFAULT-VALUE})")
  long records;

  @Option(
      names = "--duration",
      converter = DurationConverter.class,
      description = "run the ledger for this long instead of --records (e.g. 60s)")
  Duration duration;

  @Option(
      names = "--batch-size",
      split = ",",
      defaultValue = "500",
      description =
          "records per batch; a comma-separated list runs once per size (default ${DEFAULT-VALUE})")
  List<Integer> batchSizes;

  @Option(names = "--devices", defaultValue = "4", description = "simulated devices (default 4)")
  int devices;

  @Option(names = "--rooms", defaultValue = "16", description = "rooms (default 16)")
  int rooms;

  @Option(
      names = "--duplicates",
      defaultValue = "0.10",
      description = "share of each batch that retries earlier messages (default 0.10)")
  double duplicates;

  @Option(
      names = "--seed-messages",
      defaultValue = "10000",
      description =
          "messages through the seed's per-message path (slow; 0 skips it; default ${DEFAULT-VALUE})")
  int seedMessages;

  @Option(
      names = "--nats",
      defaultValue = "nats://127.0.0.1:4222",
      description = "NATS server for the JetStream row (default ${DEFAULT-VALUE})")
  String nats;

  @Option(
      names = "--room-log",
      defaultValue = "on",
      description = "on: the server integrates room logs while ingesting (default); off: not")
  String roomLog;

  @Option(
      names = "--room-checkpoint-interval",
      converter = DurationConverter.class,
      defaultValue = "1s",
      description =
          "the server signs each room's checkpoint at most this often (default ${DEFAULT-VALUE},"
              + " the server's default)")
  Duration roomCheckpointInterval;

  @Option(names = "--plot", paramLabel = "PNG", description = "write records/s vs batch size here")
  Path plot;

  @Option(
      names = "--growth-plot",
      paramLabel = "PNG",
      description =
          "write records/s vs records stored here (runs of 200000 records or more, cut into"
              + " tenths; the last batch size's run)")
  Path growthPlot;

  private boolean roomLogOn() {
    return switch (roomLog) {
      case "on" -> true;
      case "off" -> false;
      default ->
          throw new IllegalArgumentException("--room-log: got " + roomLog + ", want on or off");
    };
  }

  @Override
  public Integer call() throws Exception {
    List<IngestBenchmark.Options> runs = new ArrayList<>();
    try {
      for (int batch : batchSizes) {
        runs.add(
            new IngestBenchmark.Options(
                records,
                duration,
                batch,
                devices,
                rooms,
                duplicates,
                seedMessages,
                targets.redis,
                targets.jdbc,
                nats,
                roomLogOn(),
                roomCheckpointInterval,
                warmUp.records));
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    List<BenchResult> rows = new ArrayList<>();
    List<ThroughputPlot.Point> points = new ArrayList<>();
    String target = "";
    for (IngestBenchmark.Options o : runs) {
      IngestBenchmark.Run run = IngestBenchmark.run(o, System.out);
      target = run.target();
      rows.addAll(IngestBenchmark.results(o, run));
      points.add(new ThroughputPlot.Point(o.batchSize(), run));
    }
    output.emit(System.out, rows);
    if (growthPlot != null) {
      IngestBenchmark.Run last = points.get(points.size() - 1).run();
      if (last.growth().size() < 2) {
        System.err.println(
            "e2e: no growth plot: the run is shorter than 200000 records (use --records)");
      } else {
        GrowthPlot.write(
            growthPlot,
            String.format(
                Locale.ROOT,
                "batch %d, %d devices, %d rooms, %.0f%% retries; %s",
                batchSizes.get(batchSizes.size() - 1),
                devices,
                rooms,
                duplicates * 100,
                target),
            last.growth());
        System.out.println("wrote " + growthPlot);
      }
    }
    if (plot != null) {
      ThroughputPlot.write(
          plot,
          String.format(
              Locale.ROOT,
              "%d devices, %d rooms, %.0f%% retries; %s",
              devices,
              rooms,
              duplicates * 100,
              target),
          points);
      System.out.println("wrote " + plot);
    }
    return ExitCodes.OK;
  }
}
