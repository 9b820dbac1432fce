package dev.danmakuledger.edge.importer;

/** Receives import progress after each group commit. */
@FunctionalInterface
public interface ImportProgress {
  /** {@code done} of {@code total} entries processed ({@code total} is -1 when unknown). */
  void update(long done, long total);

  /** A listener that ignores progress; with it the importer skips counting the entries first. */
  ImportProgress NONE = (done, total) -> {};

  /** {@link #NONE}. */
  static ImportProgress none() {
    return NONE;
  }
}
