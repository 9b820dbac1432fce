package dev.danmakuledger.bench.cli;

/** Exit codes of {@code bin/bench}. */
final class ExitCodes {
  static final int OK = 0;

  /** A check failed: chaos found a violation, or tamper found an attack nobody caught. */
  static final int VIOLATION = 1;

  static final int USAGE = 2;

  /** The benchmark could not run (a service unreachable, a build part missing, I/O). */
  static final int COULD_NOT_RUN = 3;

  private ExitCodes() {}
}
