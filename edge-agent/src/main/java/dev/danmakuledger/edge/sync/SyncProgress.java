package dev.danmakuledger.edge.sync;

/** Receives sync progress after each accepted batch. */
@FunctionalInterface
public interface SyncProgress {
  /** {@code verified} of {@code total} records are verified by the server. */
  void update(long verified, long total);

  /** A listener that ignores progress. */
  static SyncProgress none() {
    return (verified, total) -> {};
  }
}
