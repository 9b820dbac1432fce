package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.ingest.GrowthPlot;
import dev.danmakuledger.bench.ingest.IngestBenchmark;
import dev.danmakuledger.bench.ingest.ShapeTable;
import dev.danmakuledger.bench.ingest.ThroughputPlot;
import dev.danmakuledger.bench.report.BenchResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
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
          + " and NATS JetStream with Nats-Msg-Id dedupe (when a NATS server answers).",
      "--batch-size, --devices and --rooms take comma-separated lists: every combination runs."
          + " --shape live runs batch 20 from 32 and 256 devices next to batch 500 from 4 devices,"
          + " into 1 and 32 rooms; --shape sweep runs batch 1, 5, 20, 100, 500 from 4, 32 and 256"
          + " devices into 1 and 32 rooms (a list given explicitly replaces the shape's). The"
          + " server is warmed before the first run of each batch size and device count."
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

  /** Which combinations of batch size, devices and rooms run. */
  enum Shape {
    /** Exactly the lists given (defaults: batch 500, 4 devices, 16 rooms). */
    CUSTOM,
    /** Live traffic: batch 20 from many devices, next to batch 500 into the same rooms. */
    LIVE,
    /** Every batch size against every device count and room count. */
    SWEEP
  }

  @Option(
      names = "--shape",
      defaultValue = "custom",
      description = "custom, live or sweep (default ${DEFAULT-VALUE}); see above")
  String shape;

  private Shape shape() {
    return switch (shape) {
      case "custom" -> Shape.CUSTOM;
      case "live" -> Shape.LIVE;
      case "sweep" -> Shape.SWEEP;
      default ->
          throw new IllegalArgumentException(
              "--shape: got " + shape + ", want custom, live or sweep");
    };
  }

  @Option(
      names = "--batch-size",
      split = ",",
      description = "records per batch, a comma-separated list (default 500)")
  List<Integer> batchSizes;

  @Option(
      names = "--devices",
      split = ",",
      description = "simulated devices, a comma-separated list (default 4)")
  List<Integer> devices;

  @Option(
      names = "--rooms",
      split = ",",
      description = "rooms, a comma-separated list (default 16)")
  List<Integer> rooms;

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

  @Option(
      names = "--window",
      paramLabel = "N",
      defaultValue = "4",
      description =
          "batches each simulated device keeps in flight, at most what the server announces in"
              + " Danmaku-Batch-Window; 1 waits for each reply before the next batch (1..16,"
              + " default ${DEFAULT-VALUE})")
  int window;

  @Option(
      names = "--new-rooms",
      description =
          "start the clock with the rooms new, so that each room's first message is timed; by"
              + " default every room gets one message before the clock")
  boolean newRooms;

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

  private static List<Integer> or(List<Integer> given, List<Integer> otherwise) {
    return given == null || given.isEmpty() ? otherwise : given;
  }

  /** The (batch, devices, rooms) combinations of the shape, in run order. */
  private List<int[]> combinations() {
    List<int[]> out = new ArrayList<>();
    switch (shape()) {
      case CUSTOM -> {
        for (int b : or(batchSizes, List.of(500))) {
          for (int d : or(devices, List.of(4))) {
            for (int r : or(rooms, List.of(16))) {
              out.add(new int[] {b, d, r});
            }
          }
        }
      }
      case LIVE -> {
        for (int r : or(rooms, List.of(1, 32))) {
          out.add(new int[] {500, 4, r});
          for (int d : or(devices, List.of(32, 256))) {
            out.add(new int[] {or(batchSizes, List.of(20)).get(0), d, r});
          }
        }
      }
      case SWEEP -> {
        for (int r : or(rooms, List.of(1, 32))) {
          for (int d : or(devices, List.of(4, 32, 256))) {
            for (int b : or(batchSizes, List.of(1, 5, 20, 100, 500))) {
              out.add(new int[] {b, d, r});
            }
          }
        }
      }
    }
    return out;
  }

  @Override
  public Integer call() throws Exception {
    List<IngestBenchmark.Options> runs = new ArrayList<>();
    Set<String> warmedShapes = new HashSet<>();
    try {
      for (int[] c : combinations()) {
        // The JIT compiles the path a shape takes (per-batch work at batch 20, per-record work at
        // batch 500, per-room work into 10,000 rooms), so each batch size, device count and room
        // count is warmed before its first run.
        boolean newShape = warmedShapes.add(c[0] + "x" + c[1] + "x" + c[2]);
        runs.add(
            new IngestBenchmark.Options(
                records,
                duration,
                c[0],
                c[1],
                c[2],
                duplicates,
                seedMessages,
                targets.redis,
                targets.jdbc,
                nats,
                roomLogOn(),
                roomCheckpointInterval,
                newShape ? warmUp.records : 0,
                window,
                newRooms));
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    List<BenchResult> rows = new ArrayList<>();
    List<ThroughputPlot.Point> points = new ArrayList<>();
    List<ShapeTable.Entry> table = new ArrayList<>();
    String target = "";
    for (IngestBenchmark.Options o : runs) {
      IngestBenchmark.Run run = IngestBenchmark.run(o, System.out);
      target = run.target();
      rows.addAll(IngestBenchmark.results(o, run));
      points.add(new ThroughputPlot.Point(o.batchSize(), run));
      table.add(new ShapeTable.Entry(o, run));
    }
    output.emit(System.out, rows);
    System.out.println();
    System.out.print(ShapeTable.markdown(table));
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
                runs.get(runs.size() - 1).batchSize(),
                runs.get(runs.size() - 1).devices(),
                runs.get(runs.size() - 1).rooms(),
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
              runs.get(0).devices(),
              runs.get(0).rooms(),
              duplicates * 100,
              target),
          points);
      System.out.println("wrote " + plot);
    }
    return ExitCodes.OK;
  }
}
