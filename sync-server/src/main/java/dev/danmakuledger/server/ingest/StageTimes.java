package dev.danmakuledger.server.ingest;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the time of accepted batches goes, stage by stage of the pipeline (docs/architecture.md
 * §4–§5; docs/benchmarks.md shows the breakdown {@code bin/bench e2e} prints). Cumulative wall time
 * per stage and the number of batches that went through the pipeline; cheap enough (two {@link
 * LongAdder} adds per stage) to stay on in production. Thread-safe.
 */
public final class StageTimes {
  /**
   * The stages of one batch, in pipeline order: finer than the {@link PipelineStage}s that label
   * metrics and spans. {@code PARSE} and {@code REPLY} happen at the HTTP boundary, before and
   * after the pipeline, and {@code OPEN} before its first stage; the pipeline's commit is split
   * here into {@code ASSEMBLE}, {@code DEVICE_LOG}, {@code MESSAGES} and {@code COMMIT}; the other
   * names are the pipeline's own. {@code PARSE} to {@code TRIAGE}, {@code PUBLISH} and {@code
   * REPLY} run per request, in parallel; {@code ADMIT} to {@code COMMIT} run per tick on the
   * sequencer (docs/architecture.md §5, "Ticks"), once for every batch of the tick.
   */
  public enum Stage {
    /** Request body read, JSON and record bytes decoded (HTTP boundary). */
    PARSE,
    /** Device row read, checkpoint note opened and its signature checked, the cosignature. */
    OPEN,
    /** Leaf hashes of the new records, and the root checked against the checkpoint. */
    VERIFY,
    /** Record decoding, moderation, per-room grouping. */
    TRIAGE,
    /** The Redis admit of every room (numbers and dedupe proposals). */
    ADMIT,
    /** SQL lookups of keys Redis remembered, and the plan of rows to write. */
    ASSEMBLE,
    /** In the batch transaction: the device row, its records and proof nodes. */
    DEVICE_LOG,
    /** In the batch transaction: the room cursors and the message rows. */
    MESSAGES,
    /**
     * The rest of the batch transaction (the device's queue report, counters, COMMIT, the
     * connection's round trips), and collision read-backs and renumbering when it fails.
     */
    COMMIT,
    /** Room and admin broadcast of what committed. */
    PUBLISH,
    /**
     * Outcomes and receipt encoded as JSON (HTTP boundary; Jetty writes the bytes after the handler
     * returns).
     */
    REPLY
  }

  private final Map<Stage, LongAdder> nanos = new EnumMap<>(Stage.class);
  private final LongAdder batches = new LongAdder();
  private final LongAdder ticks = new LongAdder();

  public StageTimes() {
    for (Stage s : Stage.values()) {
      nanos.put(s, new LongAdder());
    }
  }

  /** Adds {@code elapsedNanos} to {@code stage}. */
  public void add(Stage stage, long elapsedNanos) {
    if (elapsedNanos < 0) {
      throw new IllegalArgumentException("elapsed: got " + elapsedNanos + " ns, want >= 0");
    }
    nanos.get(stage).add(elapsedNanos);
  }

  /** Counts one batch that went through every stage up to its commit. */
  void countBatch() {
    batches.increment();
  }

  /** Counts one tick (docs/architecture.md §5, "Ticks") the sequencer ran. */
  void countTick() {
    ticks.increment();
  }

  /** A copy of the totals so far. */
  public Snapshot snapshot() {
    Map<Stage, Long> out = new EnumMap<>(Stage.class);
    nanos.forEach((s, n) -> out.put(s, n.sum()));
    return new Snapshot(batches.sum(), ticks.sum(), out);
  }

  /**
   * Totals at one moment.
   *
   * @param batches batches counted
   * @param ticks ticks counted (a tick commits the batches that were ready together)
   * @param nanos cumulative nanoseconds per stage
   */
  public record Snapshot(long batches, long ticks, Map<Stage, Long> nanos) {
    public Snapshot {
      if (batches < 0) {
        throw new IllegalArgumentException("batches: got " + batches + ", want >= 0");
      }
      if (ticks < 0) {
        throw new IllegalArgumentException("ticks: got " + ticks + ", want >= 0");
      }
      nanos = Map.copyOf(nanos);
    }

    /** What happened between {@code earlier} and this snapshot. */
    public Snapshot minus(Snapshot earlier) {
      Map<Stage, Long> out = new EnumMap<>(Stage.class);
      for (Stage s : Stage.values()) {
        out.put(s, nanos.getOrDefault(s, 0L) - earlier.nanos.getOrDefault(s, 0L));
      }
      return new Snapshot(batches - earlier.batches, ticks - earlier.ticks, out);
    }

    /** Mean milliseconds per batch spent in {@code stage}, 0 when no batch was counted. */
    public double msPerBatch(Stage stage) {
      return batches == 0 ? 0 : nanos.getOrDefault(stage, 0L) / 1e6 / batches;
    }

    /** Mean milliseconds per tick spent in {@code stage}, 0 when no tick was counted. */
    public double msPerTick(Stage stage) {
      return ticks == 0 ? 0 : nanos.getOrDefault(stage, 0L) / 1e6 / ticks;
    }

    /** Mean batches per tick, 0 when no tick was counted. */
    public double batchesPerTick() {
      return ticks == 0 ? 0 : (double) batches / ticks;
    }
  }
}
