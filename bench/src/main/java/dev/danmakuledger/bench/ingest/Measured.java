package dev.danmakuledger.bench.ingest;

import java.util.Map;

/**
 * One measured path of the e2e benchmark.
 *
 * @param name the path, named for what it is ({@code mariadb-raw-insert})
 * @param records records offered (retries included)
 * @param seconds wall time
 * @param p99Ms p99 latency of one request (a batch, or one message for per-message paths)
 * @param note what was checked, or why it was not measured
 * @param processMicros microseconds of CPU per record the watched local processes used from the
 *     start of the path's clock until they were quiet again after it ({@link CpuUse#whenQuiet}), by
 *     process name ({@code mariadbd}, {@code redis-server}); empty when not read
 */
public record Measured(
    String name,
    long records,
    double seconds,
    double p99Ms,
    String note,
    Map<String, Double> processMicros) {
  public Measured {
    if (records < 0 || !(seconds >= 0)) {
      throw new IllegalArgumentException(
          name + ": got " + records + " records in " + seconds + " s, want both >= 0");
    }
    processMicros = Map.copyOf(processMicros);
  }

  /** A path whose processes' CPU was not read. */
  public Measured(String name, long records, double seconds, double p99Ms, String note) {
    this(name, records, seconds, p99Ms, note, Map.of());
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

  /**
   * CPU microseconds per record of the first of {@code processes} that was measured (a database
   * runs as {@code mariadbd} or {@code mysqld}), or NaN if none was.
   */
  public double microsOf(String... processes) {
    for (String p : processes) {
      Double us = processMicros.get(p);
      if (us != null) {
        return us;
      }
    }
    return Double.NaN;
  }
}
