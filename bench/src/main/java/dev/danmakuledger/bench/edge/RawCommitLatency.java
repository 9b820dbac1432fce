package dev.danmakuledger.bench.edge;

import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.sqlite.SQLiteConfig;

/**
 * The floor under one durable ack, measured on the same disk in the same loop as the acks: single
 * durable transactions through raw sqlite-jdbc into the agent's schema with the agent's pragmas
 * (WAL, {@code synchronous=FULL}), each timed as its statements and its {@code COMMIT} (the WAL
 * write and {@code fsync}) apart.
 *
 * <ul>
 *   <li><b>one row</b>: one {@code INSERT} into {@code records} and a {@code COMMIT}: the least a
 *       durable capture can cost on this disk;
 *   <li><b>agent-shaped</b>: the rows a capture transaction of one record writes (the record, a
 *       signed-checkpoint-sized note, the log state with a compact range, two counters), as plain
 *       statements with nothing computed: what the agent's own transaction costs without the agent.
 * </ul>
 *
 * Each kind has a database file of its own, so neither reads the other's pages.
 */
final class RawCommitLatency implements AutoCloseable {
  static final String INSERT_RECORD =
      "INSERT INTO records(idx, idempotency_key, content_hash, canonical, leaf_hash, captured_at,"
          + " checkpoint_size) VALUES (?, ?, ?, ?, ?, ?, ?)";
  private static final String INSERT_CHECKPOINT =
      "INSERT INTO checkpoints(size, note, created_at) VALUES (?, ?, ?)";
  private static final String UPDATE_LOG_STATE =
      "UPDATE log_state SET size = ?, compact_range = ? WHERE id = 0";
  private static final String ADD_COUNTER =
      "INSERT INTO counters(name, value) VALUES (?, ?) "
          + "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value";

  /**
   * A C2SP signed note of a device checkpoint is about this long (origin, size, root, one line).
   */
  private static final String NOTE = "x".repeat(200);

  /** Timings of one kind of transaction: total, statements, commit (nanoseconds per sample). */
  static final class Timings {
    final long[] total;
    final long[] statements;
    final long[] commit;

    Timings(int samples) {
      total = new long[samples];
      statements = new long[samples];
      commit = new long[samples];
    }
  }

  /** The timings of both kinds, sample {@code i} of each taken in the same loop iteration. */
  record Result(Timings oneRow, Timings agentShaped) {}

  private final List<AutoCloseable> resources = new ArrayList<>();
  private final Connection oneRowConn;
  private final PreparedStatement oneRow;
  private final Connection agentConn;
  private final PreparedStatement record;
  private final PreparedStatement checkpoint;
  private final PreparedStatement logState;
  private final PreparedStatement counter;
  private final Timings oneRowTimings;
  private final Timings agentTimings;
  private final byte[] payload = new byte[120];
  private final byte[] leafHash = new byte[32];
  private final byte[] compactRange = new byte[8 + 15 * 32];
  private final String contentHash = "0".repeat(64);

  private RawCommitLatency(Path dir, int samples) throws IOException, SQLException {
    oneRowConn = open(dir.resolve("one-row"));
    oneRow = prepare(oneRowConn, INSERT_RECORD);
    agentConn = open(dir.resolve("agent-shaped"));
    record = prepare(agentConn, INSERT_RECORD);
    checkpoint = prepare(agentConn, INSERT_CHECKPOINT);
    logState = prepare(agentConn, UPDATE_LOG_STATE);
    counter = prepare(agentConn, ADD_COUNTER);
    oneRowTimings = new Timings(samples);
    agentTimings = new Timings(samples);
  }

  static RawCommitLatency open(Path dir, int samples) throws IOException, SQLException {
    return new RawCommitLatency(dir, samples);
  }

  private Connection open(Path dir) throws IOException, SQLException {
    Connection c = connection(dir);
    resources.add(c);
    c.setAutoCommit(false);
    return c;
  }

  private PreparedStatement prepare(Connection c, String sql) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    resources.add(0, ps);
    return ps;
  }

  /** A connection to a fresh store with the agent's schema and pragmas in {@code dir}. */
  static Connection connection(Path dir) throws IOException, SQLException {
    Files.createDirectories(dir);
    Path file = EdgeStore.fileIn(dir);
    try {
      EdgeStore.open(file, Durability.FULL).close();
    } catch (dev.danmakuledger.edge.store.StoreException e) {
      throw new IOException(e.getMessage(), e);
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    config.setBusyTimeout(5_000);
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + file, config.toProperties());
    try (Statement st = c.createStatement()) {
      st.execute("PRAGMA wal_autocheckpoint=" + EdgeStore.WAL_AUTOCHECKPOINT_FRAMES);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /**
   * Commits record {@code index} (key {@code key}) once in each database; {@code sample} is where
   * its timings go, negative for a warm-up call.
   */
  void commitBoth(long index, String key, int sample) throws SQLException {
    long t0 = System.nanoTime();
    bindRecord(oneRow, index, key);
    oneRow.executeUpdate();
    long t1 = System.nanoTime();
    oneRowConn.commit();
    long t2 = System.nanoTime();
    record(oneRowTimings, sample, t0, t1, t2);

    t0 = System.nanoTime();
    bindRecord(record, index, key);
    record.executeUpdate();
    checkpoint.setLong(1, index + 1);
    checkpoint.setString(2, NOTE);
    checkpoint.setLong(3, index);
    checkpoint.executeUpdate();
    logState.setLong(1, index + 1);
    logState.setBytes(2, compactRange);
    logState.executeUpdate();
    for (String name : new String[] {"captures", "bloom_checks"}) {
      counter.setString(1, name);
      counter.setLong(2, 1);
      counter.executeUpdate();
    }
    t1 = System.nanoTime();
    agentConn.commit();
    t2 = System.nanoTime();
    record(agentTimings, sample, t0, t1, t2);
  }

  private void bindRecord(PreparedStatement ps, long index, String key) throws SQLException {
    ps.setLong(1, index);
    ps.setString(2, key);
    ps.setString(3, contentHash);
    ps.setBytes(4, payload);
    ps.setBytes(5, leafHash);
    ps.setLong(6, index);
    ps.setLong(7, index + 1);
  }

  private static void record(Timings t, int sample, long t0, long t1, long t2) {
    if (sample >= 0) {
      t.total[sample] = t2 - t0;
      t.statements[sample] = t1 - t0;
      t.commit[sample] = t2 - t1;
    }
  }

  Result result() {
    return new Result(oneRowTimings, agentTimings);
  }

  @Override
  public void close() throws SQLException {
    SQLException first = null;
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        if (first == null) {
          first = e instanceof SQLException s ? s : new SQLException(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
