package dev.danmakuledger.bench.ingest;

/**
 * One measured path of the e2e benchmark.
 *
 * @param name the path, named for what it is ({@code mariadb-raw-insert})
 * @param records records offered (retries included)
 * @param seconds wall time
 * @param p99Ms p99 latency of one request (a batch, or one message for per-message paths)
 * @param note what was checked, or why it was not measured
 */
public record Measured(String name, long records, double seconds, double p99Ms, String note) {
  public Measured {
    if (records < 0 || !(seconds >= 0)) {
      throw new IllegalArgumentException(
          name + ": got " + records + " records in " + seconds + " s, want both >= 0");
    }
  }

  /** A path that could not run, with the reason. */
  public static Measured notMeasured(String name, String why) {
    return new Measured(name, 0, 0, Double.NaN, why);
  }

  public boolean measured() {
    return records > 0 && seconds > 0;
  }

  public double perSecond() {
    return measured() ? records / seconds : Double.NaN;
  }
}
