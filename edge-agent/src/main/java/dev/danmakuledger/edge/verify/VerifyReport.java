package dev.danmakuledger.edge.verify;

/**
 * The result of an audit. On failure {@code firstBadIndex} is the first log index found wrong (or
 * null when the problem is not tied to a record, e.g. an unreadable file) and {@code problem} says
 * what was found.
 */
public record VerifyReport(
    boolean ok,
    long recordsChecked,
    long checkpointsChecked,
    String rootHex,
    Long firstBadIndex,
    String problem) {
  public VerifyReport {
    if (ok && problem != null) {
      throw new IllegalArgumentException("report: got ok with problem " + problem);
    }
    if (!ok && problem == null) {
      throw new IllegalArgumentException("report: got a failure without a problem");
    }
  }

  static VerifyReport passed(long records, long checkpoints, String rootHex) {
    return new VerifyReport(true, records, checkpoints, rootHex, null, null);
  }

  static VerifyReport failed(long records, long checkpoints, Long index, String problem) {
    return new VerifyReport(false, records, checkpoints, null, index, problem);
  }
}
