package dev.danmakuledger.server.storage;

/**
 * Cumulative duplicate counters a device reports with its batches (docs/architecture.md §5, check
 * 1).
 *
 * @param checks Bloom lookups
 * @param maybe Bloom "maybe seen" answers
 * @param duplicates captures refused as exact duplicates
 * @param falsePositives "maybe" answers the exact check found new
 */
public record EdgeCounters(long checks, long maybe, long duplicates, long falsePositives) {
  public static final EdgeCounters ZERO = new EdgeCounters(0, 0, 0, 0);

  public EdgeCounters {
    if (checks < 0 || maybe < 0 || duplicates < 0 || falsePositives < 0) {
      throw new IllegalArgumentException(
          "edge counters: got "
              + checks
              + "/"
              + maybe
              + "/"
              + duplicates
              + "/"
              + falsePositives
              + ", want all >= 0");
    }
  }

  /** The larger of each counter, since reports are cumulative and may arrive out of order. */
  public EdgeCounters max(EdgeCounters other) {
    return new EdgeCounters(
        Math.max(checks, other.checks),
        Math.max(maybe, other.maybe),
        Math.max(duplicates, other.duplicates),
        Math.max(falsePositives, other.falsePositives));
  }
}
