package dev.danmakuledger.edge.cli;

/** Process exit codes of {@code edge-agent}, documented in docs/edge-agent.md. */
final class ExitCodes {
  /** Success. */
  static final int OK = 0;

  /** Verification failed, an idempotency conflict, or an import that did not complete. */
  static final int FAILED = 1;

  /** Bad command line or invalid input (picocli's usage code). */
  static final int USAGE = 2;

  /** The store reached its size bound; nothing was captured. */
  static final int STORE_FULL = 3;

  /** Another edge-agent owns the data directory. */
  static final int LOCKED = 4;

  /** The data directory was never initialised, or is already initialised for {@code init}. */
  static final int NOT_INITIALIZED = 5;

  /** The store or a file could not be read or written. */
  static final int IO_ERROR = 6;

  private ExitCodes() {}
}
