package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.bench.report.BenchResult;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The e2e and backlog row that compares the database's own work per record, the ledger's against
 * the raw insert's (docs/benchmarks.md, "The database's share"): records per CPU-second of the
 * database process, so that the ratio is the share of the database's raw insert capacity the ledger
 * reaches where the database is the bottleneck, the sync servers being stateless and Redis a
 * cluster of its own. The e2e row's note also says what the run's machine allows: the rate a sync
 * server that cost no CPU at all would reach on its cores, the database and Redis sharing them as
 * they do in the run.
 */
final class DatabaseWork {
  static final String METRIC = "records per database CPU-second";

  /** The names a MySQL-family database process runs under. */
  private static final String[] DATABASE = {"mariadbd", "mysqld"};

  private static final Pattern LOOPBACK =
      Pattern.compile("^jdbc:[a-z]+://(127\\.0\\.0\\.1|localhost|\\[::1\\])[:/?]");

  private DatabaseWork() {}

  /** The database process's CPU microseconds per record of {@code path}, NaN when not read. */
  static double micros(Measured path) {
    return path.microsOf(DATABASE);
  }

  /** Whether a server JDBC URL names this machine (loopback), where its process can be watched. */
  static boolean local(String jdbcUrl) {
    return jdbcUrl != null && LOOPBACK.matcher(jdbcUrl).find();
  }

  /** The row of {@code benchmark} for a database whose process this machine cannot watch. */
  static BenchResult onAnotherHost(String benchmark, Measured raw) {
    return notMeasured(benchmark, raw, "the database runs on another host");
  }

  /** The row of {@code benchmark} when the database's CPU cannot be read, with the reason. */
  private static BenchResult notMeasured(String benchmark, Measured raw, String why) {
    return new BenchResult(
        benchmark, METRIC, null, raw.name(), null, null, null, "not measured: " + why);
  }

  /**
   * The e2e row for {@code ours} against {@code raw}, both measured on the same machine in the same
   * run, its note ending with the rate a free sync server would reach on {@code cores}; a
   * not-measured row when either side's database CPU was not read.
   *
   * @param cores the cores the run's processes share
   * @param params the run's parameters, for the note
   */
  static BenchResult row(Measured ours, Measured raw, int cores, String params) {
    double redisUs = ours.processMicros().getOrDefault("redis-server", 0.0);
    double databaseUs = ours.microsOf(DATABASE);
    double serverFree = cores * 1e6 / (databaseUs + redisUs);
    return row(
        "e2e",
        ours,
        raw,
        String.format(
            Locale.ROOT,
            "%s; with a sync server that cost no CPU, this machine's %d cores would take at most"
                + " %,.0f records/s (database %.1f + redis-server %.1f µs a record), %.2f of the"
                + " raw insert's %,.0f/s",
            params,
            cores,
            serverFree,
            databaseUs,
            redisUs,
            serverFree / raw.perSecond(),
            raw.perSecond()));
  }

  /**
   * The row of {@code benchmark} for {@code ours} against {@code raw}, both measured on the same
   * machine in the same run; a not-measured row when either side's database CPU was not read (an
   * embedded database, or one on another host).
   *
   * @param note the run's parameters and anything else the note should say first
   */
  static BenchResult row(String benchmark, Measured ours, Measured raw, String note) {
    double oursUs = ours.microsOf(DATABASE);
    double rawUs = raw.microsOf(DATABASE);
    if (!(oursUs > 0) || !(rawUs > 0)) {
      return notMeasured(benchmark, raw, "no database process was seen on this machine");
    }
    return BenchResult.compared(
        benchmark,
        METRIC,
        1e6 / oursUs,
        raw.name(),
        1e6 / rawUs,
        null,
        String.format(
            Locale.ROOT,
            "%s; database CPU per record, from the clock's start until the database was quiet"
                + " again: ledger %.1f µs, %s %.1f µs",
            note,
            oursUs,
            raw.name(),
            rawUs));
  }
}
