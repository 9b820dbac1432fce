package dev.danmakuledger.server.ingest;

/**
 * The named steps of the batch pipeline (docs/architecture.md §4–§5), as observed by a {@link
 * StageObserver}: the stage label of the {@code danmaku_stage_seconds} histogram and the name of
 * the tracing span (docs/operations.md, "Tracing").
 */
public enum PipelineStage {
  /** Hashing the new records into the device tree and checking the signed checkpoint's root. */
  VERIFY,
  /** Parsing, moderating and rejecting records before anything is admitted. */
  TRIAGE,
  /** The atomic Redis admit per room (dedupe proposal and numbers). */
  ADMIT,
  /** The SQL transaction, including collision rounds. */
  COMMIT,
  /** Broadcast of what committed. */
  PUBLISH;

  /** The lower-case name used as metric label and span name suffix. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
