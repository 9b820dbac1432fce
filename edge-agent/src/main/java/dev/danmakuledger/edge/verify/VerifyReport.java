package dev.danmakuledger.edge.verify;

/**
 * The result of an audit. On failure {@code firstBadIndex} is the first log index found wrong (or
 * null when the problem is not tied to a record, e.g. an unreadable file) and {@code problem} says
 * what was found. {@code recordsPruned} counts the records whose bytes were dropped by retention
 * pruning: their leaf hashes were checked against the signed roots but they could not be decoded.
 */
public record VerifyReport(
    boolean ok,
    long recordsChecked,
    long checkpointsChecked,
    String rootHex,
    Long firstBadIndex,
    String problem,
    long recordsPruned) {
  public VerifyReport {
    if (recordsPruned < 0 || recordsPruned > recordsChecked) {
      throw new IllegalArgumentException(
          "report: got "
              + recordsPruned
              + " pruned records of "
              + recordsChecked
              + ", want 0.."
              + recordsChecked);
    }
    if (ok && problem != null) {
      throw new IllegalArgumentException("report: got ok with problem " + problem);
    }
    if (!ok && problem == null) {
      throw new IllegalArgumentException("report: got a failure without a problem");
    }
  }

  /** A report of a store without pruned records. */
  public VerifyReport(
      boolean ok,
      long recordsChecked,
      long checkpointsChecked,
      String rootHex,
      Long firstBadIndex,
      String problem) {
    this(ok, recordsChecked, checkpointsChecked, rootHex, firstBadIndex, problem, 0);
  }

  static VerifyReport passed(long records, long checkpoints, String rootHex, long pruned) {
    return new VerifyReport(true, records, checkpoints, rootHex, null, null, pruned);
  }

  static VerifyReport failed(long records, long checkpoints, Long index, String problem) {
    return new VerifyReport(false, records, checkpoints, null, index, problem, 0);
  }
}
