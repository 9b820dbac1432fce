package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.server.ingest.StageTimes;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The server's stage times of a run as one line, for the benchmarks that drive a sync server. */
public final class StageBreakdown {
  private StageBreakdown() {}

  /** The stages a tick runs (docs/architecture.md §5, "Ticks"); the others run per request. */
  private static final Set<StageTimes.Stage> TICK_STAGES =
      EnumSet.of(
          StageTimes.Stage.ADMIT,
          StageTimes.Stage.ASSEMBLE,
          StageTimes.Stage.DEVICE_LOG,
          StageTimes.Stage.MESSAGES,
          StageTimes.Stage.COMMIT);

  /**
   * Mean server milliseconds of every stage, in pipeline order: per batch for the stages a request
   * runs, per tick for those of the tick, and the batches a tick held.
   */
  public static String of(StageTimes.Snapshot s) {
    StringBuilder perBatch = new StringBuilder();
    StringBuilder perTick = new StringBuilder();
    for (StageTimes.Stage stage : StageTimes.Stage.values()) {
      boolean tick = TICK_STAGES.contains(stage);
      StringBuilder out = tick ? perTick : perBatch;
      if (out.length() > 0) {
        out.append(", ");
      }
      out.append(stage.name().toLowerCase(Locale.ROOT))
          .append(
              String.format(Locale.ROOT, " %.2f", tick ? s.msPerTick(stage) : s.msPerBatch(stage)));
    }
    return String.format(
        Locale.ROOT,
        "per batch %s; per tick %s (%d batches in %d ticks, %.1f a tick)",
        perBatch,
        perTick,
        s.batches(),
        s.ticks(),
        s.batchesPerTick());
  }
}
