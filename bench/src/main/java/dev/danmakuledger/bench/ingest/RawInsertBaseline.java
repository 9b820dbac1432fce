package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The baseline a user would write without the ledger: each batch of rows, retries included, sent as
 * one batched {@code INSERT IGNORE} into a table shaped like the server's {@code messages} (UNIQUE
 * idempotency key as the only dedupe), one transaction per batch, into the same database as the
 * server in the same run. Each device's batches go in order over one connection; up to {@value
 * #MAX_CONNECTIONS} devices have a connection of their own, and beyond that the devices share the
 * connections round robin, as a client's connection pool would (a MariaDB server accepts 151
 * connections by default).
 */
final class RawInsertBaseline {
  static final String TABLE = "bench_raw_messages";

  /** The most connections the baseline opens at once. */
  static final int MAX_CONNECTIONS = 64;

  private RawInsertBaseline() {}

  /**
   * Inserts {@code perDevice} and times it, after the same procedure ran untimed on {@code warmUp}
   * (unless empty) into a table of its own, dropped after, so that the timed run is of compiled
   * code as the ledger's is.
   */
  static Measured run(
      String name,
      String jdbcUrl,
      List<List<List<DanmakuRecord>>> perDevice,
      List<List<List<DanmakuRecord>>> warmUp)
      throws Exception {
    // H2 closes an embedded database with its last connection, and a session that opens the
    // database while another one is opening it can miss the URL's MODE=MySQL (then INSERT IGNORE
    // is a syntax error). One connection held for the whole run opens it once, with the settings,
    // and does the run's DDL and counting.
    try (Connection held = DriverManager.getConnection(jdbcUrl);
        Statement ddl = held.createStatement()) {
      if (!warmUp.isEmpty()) {
        String warmTable = TABLE + "_warm";
        ddl.executeUpdate(createTable(warmTable));
        try {
          insertConcurrently(jdbcUrl, warmTable, warmUp);
        } finally {
          ddl.executeUpdate("DROP TABLE " + warmTable);
        }
      }
      ddl.executeUpdate(createTable(TABLE));
      long records = perDevice.stream().flatMap(List::stream).mapToLong(List::size).sum();
      CpuUse cpuBefore = CpuUse.whenQuiet(CpuUse.SETTLE);
      long start = System.nanoTime();
      Latencies all = insertConcurrently(jdbcUrl, TABLE, perDevice);
      double seconds = (System.nanoTime() - start) / 1e9;
      CpuUse cpuAfter = CpuUse.now();
      String cpu = cpuAfter.perRecordSince(cpuBefore, records);
      long kept;
      try (java.sql.ResultSet rs = ddl.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
        rs.next();
        kept = rs.getLong(1);
      }
      return new Measured(
          name,
          records,
          seconds,
          all.percentileMs(99),
          "batched INSERT IGNORE, " + kept + " rows kept of " + records + "; " + cpu,
          CpuUse.whenQuiet(CpuUse.SETTLE).processMicrosSince(cpuBefore, records));
    }
  }

  private static String createTable(String table) {
    return "CREATE TABLE "
        + table
        + " (room VARCHAR(64) NOT NULL, seq BIGINT NOT NULL, idempotency_key VARCHAR(255)"
        + " NOT NULL, content_hash CHAR(64) NOT NULL, device_id VARCHAR(64) NOT NULL,"
        + " user_id VARCHAR(64) NOT NULL, text VARCHAR(1200) NOT NULL, playback_ms BIGINT,"
        + " mode INT NOT NULL, color INT NOT NULL, font_size INT NOT NULL, hlc BIGINT NOT"
        + " NULL, status VARCHAR(16) NOT NULL, created_at BIGINT NOT NULL,"
        + " PRIMARY KEY (room, seq), CONSTRAINT uq_"
        + table
        + "_key UNIQUE (idempotency_key))";
  }

  /**
   * Every device's batches at once, in order per device, on at most {@link #MAX_CONNECTIONS}
   * connections: connection j sends, round by round, the next batch of each device j, j + n, j +
   * 2n, ... it serves.
   */
  private static Latencies insertConcurrently(
      String jdbcUrl, String table, List<List<List<DanmakuRecord>>> perDevice) throws Exception {
    AtomicLong seq = new AtomicLong();
    int connections = Math.max(1, Math.min(MAX_CONNECTIONS, perDevice.size()));
    ExecutorService pool = Executors.newFixedThreadPool(connections);
    Latencies all = new Latencies();
    try {
      List<Future<Latencies>> running = new ArrayList<>();
      for (int j = 0; j < connections; j++) {
        List<List<DanmakuRecord>> batches = interleaved(perDevice, j, connections);
        running.add(pool.submit(() -> insertAll(jdbcUrl, table, batches, seq)));
      }
      for (Future<Latencies> f : running) {
        all.merge(f.get());
      }
      return all;
    } finally {
      pool.shutdownNow();
    }
  }

  /** The batches of devices {@code first}, {@code first + step}, ..., one of each in turn. */
  static List<List<DanmakuRecord>> interleaved(
      List<List<List<DanmakuRecord>>> perDevice, int first, int step) {
    List<List<DanmakuRecord>> out = new ArrayList<>();
    for (int round = 0; ; round++) {
      boolean any = false;
      for (int d = first; d < perDevice.size(); d += step) {
        List<List<DanmakuRecord>> batches = perDevice.get(d);
        if (round < batches.size()) {
          out.add(batches.get(round));
          any = true;
        }
      }
      if (!any) {
        return out;
      }
    }
  }

  private static Latencies insertAll(
      String url, String table, List<List<DanmakuRecord>> batches, AtomicLong seq)
      throws SQLException {
    Latencies lat = new Latencies();
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT IGNORE INTO "
                    + table
                    + " (room, seq, idempotency_key, content_hash, device_id, user_id, text,"
                    + " playback_ms, mode, color, font_size, hlc, status, created_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'CONFIRMED', ?)")) {
      c.setAutoCommit(false);
      for (List<DanmakuRecord> batch : batches) {
        long t0 = System.nanoTime();
        for (DanmakuRecord r : batch) {
          ps.setString(1, r.room());
          ps.setLong(2, seq.incrementAndGet());
          ps.setString(3, r.key().toString());
          ps.setString(4, r.contentHash());
          ps.setString(5, r.deviceId());
          ps.setString(6, r.user());
          ps.setString(7, r.text());
          if (r.playbackMs() == null) {
            ps.setNull(8, java.sql.Types.BIGINT);
          } else {
            ps.setLong(8, r.playbackMs());
          }
          ps.setInt(9, r.mode());
          ps.setInt(10, r.color());
          ps.setInt(11, r.fontSize());
          ps.setLong(12, r.hlc());
          ps.setLong(13, System.currentTimeMillis());
          ps.addBatch();
        }
        ps.executeBatch();
        c.commit();
        lat.add(System.nanoTime() - t0);
      }
    }
    return lat;
  }
}
