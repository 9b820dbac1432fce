package dev.danmakuledger.edge.store;

import dev.danmakuledger.edge.bloom.BloomSnapshot;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.sqlite.SQLiteConfig;

/**
 * The device-log store as one SQLite file in WAL mode with {@code synchronous=FULL} by default, so
 * a commit has reached the disk before it returns (docs/architecture.md §3, §6). The tables are
 * their own types ({@link RecordTable}, {@link NoteTables}, {@link OutcomeTable}, {@link
 * CounterTable}, {@link BloomSnapshotTable}, {@link RetentionTable}); this class owns the one
 * connection, the transactions and the error messages.
 *
 * <p>Thread-safe: every operation runs under the store's monitor on its one connection.
 */
final class SqliteEdgeStore implements EdgeStore {
  static final String DB_FILE = "agent.db";

  private final Path file;
  private final Connection conn;
  private final SqliteErrors errors;

  /** Prepared on the first append (the tables exist by then), closed with the connection. */
  private AppendStatements appendStatements;

  private SqliteEdgeStore(Path file, Connection conn) {
    this.file = file;
    this.conn = conn;
    this.errors = new SqliteErrors(file, conn);
  }

  static SqliteEdgeStore open(Path file, Durability durability) throws StoreException {
    createPrivately(file);
    SqliteEdgeStore store = connectReadWrite(file, durability);
    try {
      store.migrate();
    } catch (StoreException e) {
      store.close();
      throw e;
    }
    return store;
  }

  static SqliteEdgeStore openExisting(Path file, Durability durability) throws StoreException {
    long bytes;
    try {
      bytes = Files.isRegularFile(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      throw new StoreException("cannot stat store " + file, e);
    }
    if (bytes == 0) {
      throw new StoreException(lostStore(file));
    }
    restrict(file);
    SqliteEdgeStore store = connectReadWrite(file, durability);
    try {
      if (store.schemaVersion() == 0) {
        throw new StoreException(lostStore(file));
      }
      store.migrate();
    } catch (StoreException e) {
      store.close();
      throw e;
    }
    return store;
  }

  static SqliteEdgeStore openReadOnly(Path file) throws StoreException {
    if (!Files.isRegularFile(file)) {
      throw new StoreException("no store at " + file + "; run `edge-agent init` first");
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(5_000);
    SqliteEdgeStore store = connect(file, config);
    try {
      long version = store.schemaVersion();
      if (version == 0) {
        throw new StoreException(lostStore(file));
      }
      if (version != Migrations.current()) {
        throw new StoreException(
            "store "
                + file
                + " has schema version "
                + version
                + ", want "
                + Migrations.current()
                + " (open it with a writing command to migrate)");
      }
    } catch (StoreException e) {
      store.close();
      throw e;
    }
    return store;
  }

  /**
   * Creates a missing store file empty with mode 0600 (SQLite takes an empty file as a new database
   * and gives its WAL and shared-memory files the same mode), or tightens an existing one.
   */
  private static void createPrivately(Path file) throws StoreException {
    try {
      if (!Files.exists(file)) {
        PrivateFiles.createFile(file);
      }
    } catch (FileAlreadyExistsException e) {
      // Created concurrently; tightened below like any existing file.
    } catch (IOException e) {
      throw new StoreException("cannot create store " + file + ": " + e.getMessage(), e);
    }
    restrict(file);
  }

  private static void restrict(Path file) throws StoreException {
    try {
      PrivateFiles.restrict(file);
      PrivateFiles.restrict(file.resolveSibling(file.getFileName() + "-wal"));
      PrivateFiles.restrict(file.resolveSibling(file.getFileName() + "-shm"));
    } catch (IOException e) {
      throw new StoreException("cannot make store " + file + " private: " + e.getMessage(), e);
    }
  }

  private static String lostStore(Path file) {
    return "store "
        + file
        + " is missing, empty or not an edge-agent store although the directory is initialised;"
        + " the device log was lost or truncated: restore it from a backup (a fresh log would"
        + " fork this device)";
  }

  private static SQLiteConfig readWrite(Durability durability) {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(
        durability == Durability.FULL
            ? SQLiteConfig.SynchronousMode.FULL
            : SQLiteConfig.SynchronousMode.NORMAL);
    config.setBusyTimeout(5_000);
    return config;
  }

  /**
   * The writing connection: {@link #readWrite} pragmas, and the WAL checkpoint interval, which
   * SQLite keeps per connection and so cannot go into the connection's configuration.
   */
  private static SqliteEdgeStore connectReadWrite(Path file, Durability durability)
      throws StoreException {
    SqliteEdgeStore store = connect(file, readWrite(durability));
    try {
      store.checkpointEvery(EdgeStore.WAL_AUTOCHECKPOINT_FRAMES);
    } catch (StoreException e) {
      store.close();
      throw e;
    }
    return store;
  }

  private static SqliteEdgeStore connect(Path file, SQLiteConfig config) throws StoreException {
    try {
      Connection conn = DriverManager.getConnection("jdbc:sqlite:" + file, config.toProperties());
      return new SqliteEdgeStore(file, conn);
    } catch (SQLException e) {
      throw new StoreException("cannot open store " + file + ": " + e.getMessage(), e);
    }
  }

  private synchronized void checkpointEvery(int frames) throws StoreException {
    try (Statement st = conn.createStatement()) {
      st.execute("PRAGMA wal_autocheckpoint=" + frames);
    } catch (SQLException e) {
      throw new StoreException(
          "cannot set the checkpoint interval of " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Path file() {
    return file;
  }

  @Override
  public synchronized long schemaVersion() throws StoreException {
    try {
      return Migrations.version(conn);
    } catch (SQLException | NumberFormatException e) {
      throw new StoreException("cannot read schema in " + file + ": " + e.getMessage(), e);
    }
  }

  private synchronized void migrate() throws StoreException {
    Migrations.apply(conn, schemaVersion(), errors);
  }

  @Override
  public synchronized Optional<String> meta(String name) throws StoreException {
    try (PreparedStatement ps = conn.prepareStatement("SELECT value FROM meta WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw errors.fail("read meta " + name, e);
    }
  }

  @Override
  public synchronized void putMeta(String name, String value) throws StoreException {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "INSERT INTO meta(name, value) VALUES (?, ?) "
                + "ON CONFLICT(name) DO UPDATE SET value = excluded.value")) {
      ps.setString(1, name);
      ps.setString(2, value);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw errors.fail("write meta " + name, e);
    }
  }

  @Override
  public synchronized LogStateRow logState() throws StoreException {
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT size, compact_range FROM log_state WHERE id = 0")) {
      if (!rs.next()) {
        throw new StoreException("store " + file + " has no log_state row");
      }
      return new LogStateRow(rs.getLong(1), rs.getBytes(2));
    } catch (SQLException e) {
      throw errors.fail("read log state", e);
    }
  }

  @Override
  public synchronized void append(AppendBatch batch) throws StoreException {
    inTransaction(
        "append records [" + batch.oldSize() + ", " + batch.newSize() + ")",
        c -> {
          if (appendStatements == null) {
            appendStatements = new AppendStatements(c);
          }
          AppendStatements st = appendStatements;
          // The log state moves from the batch's old size or not at all: the guarded update is the
          // check, with no read before it; the committed size is read only to say what went wrong.
          boolean atCommittedSize =
              batch.records().isEmpty()
                  ? st.committedSize() == batch.oldSize()
                  : st.advanceLogState(batch.oldSize(), batch.newSize(), batch.compactRange());
          if (!atCommittedSize) {
            throw new StoreException(
                "append at size "
                    + batch.oldSize()
                    + ": got that, want the committed size "
                    + st.committedSize());
          }
          if (!batch.records().isEmpty()) {
            st.insertRecords(c, batch);
            st.insertCheckpoint(batch.newSize(), batch.checkpointNote(), batch.createdAt());
          }
          st.addCounters(batch.counterDeltas());
        });
  }

  @Override
  public synchronized void incrementCounters(Map<String, Long> deltas) throws StoreException {
    run("update counters", c -> CounterTable.add(c, deltas));
  }

  @Override
  public synchronized Map<String, Long> counters() throws StoreException {
    return call("read counters", CounterTable::all);
  }

  @Override
  public synchronized Optional<StoredRecord> findByKey(String idempotencyKey)
      throws StoreException {
    return call("look up key " + idempotencyKey, c -> RecordTable.findByKey(c, idempotencyKey));
  }

  @Override
  public synchronized List<StoredRecord> records(long fromIndex, int limit) throws StoreException {
    return call("read records from " + fromIndex, c -> RecordTable.range(c, fromIndex, limit));
  }

  @Override
  public synchronized void forEachRecord(Predicate<StoredRecord> visitor) throws StoreException {
    try {
      RecordTable.forEach(conn, visitor);
    } catch (SQLException e) {
      throw errors.fail("scan records", e);
    } catch (IllegalArgumentException e) {
      throw new StoreException("malformed record row: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized List<String> keysFrom(long fromIndex) throws StoreException {
    return call("read keys from " + fromIndex, c -> RecordTable.keysFrom(c, fromIndex));
  }

  @Override
  public synchronized long recordCount() throws StoreException {
    return call("count records", RecordTable::count);
  }

  @Override
  public synchronized Map<String, Long> outcomeCounts() throws StoreException {
    return call("count outcomes", OutcomeTable::counts);
  }

  @Override
  public synchronized Optional<Long> oldestUnsyncedCapturedAt() throws StoreException {
    return call("read the oldest unsynced record", OutcomeTable::oldestUnsynced);
  }

  @Override
  public synchronized void applyOutcomes(List<OutcomeUpdate> updates) throws StoreException {
    inTransaction("store outcomes", c -> OutcomeTable.apply(c, updates));
  }

  @Override
  public synchronized void saveReceipt(long size, String note, long receivedAt)
      throws StoreException {
    run("store receipt for size " + size, c -> NoteTables.saveReceipt(c, size, note, receivedAt));
  }

  @Override
  public synchronized void acceptBatch(
      List<OutcomeUpdate> updates, long size, String receipt, long receivedAt)
      throws StoreException {
    inTransaction(
        "store outcomes and receipt for size " + size,
        c -> {
          OutcomeTable.apply(c, updates);
          NoteTables.saveReceipt(c, size, receipt, receivedAt);
        });
  }

  @Override
  public synchronized Optional<StoredCheckpoint> latestReceipt() throws StoreException {
    return call("read latest note", NoteTables::latestReceipt);
  }

  @Override
  public synchronized Optional<StoredCheckpoint> latestCheckpoint() throws StoreException {
    return call("read latest note", NoteTables::latestCheckpoint);
  }

  @Override
  public synchronized List<StoredCheckpoint> checkpoints() throws StoreException {
    try {
      return NoteTables.checkpoints(conn);
    } catch (SQLException e) {
      throw errors.fail("read checkpoints", e);
    } catch (IllegalArgumentException e) {
      throw new StoreException("malformed checkpoint row: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void saveBloom(BloomSnapshot s) throws StoreException {
    run("save bloom snapshot", c -> BloomSnapshotTable.save(c, s));
  }

  @Override
  public synchronized Optional<BloomSnapshot> loadBloom() throws StoreException {
    return call("load bloom snapshot", BloomSnapshotTable::load);
  }

  @Override
  public synchronized long prune(long coveredSize, long keepFrom, long capturedBefore, long now)
      throws StoreException {
    return call(
        "prune records", c -> RetentionTable.prune(c, coveredSize, keepFrom, capturedBefore, now));
  }

  @Override
  public synchronized long prunedCount() throws StoreException {
    return call("count pruned records", RetentionTable::prunedCount);
  }

  @Override
  public synchronized void compact() throws StoreException {
    try {
      // VACUUM refuses to run beside prepared statements that are not reset; prepared again on
      // the next append.
      closeAppendStatements();
      RetentionTable.compact(conn);
    } catch (SQLException e) {
      throw errors.fail("compact the store", e);
    }
  }

  @Override
  public long sizeOnDiskBytes() throws StoreException {
    try {
      long size = Files.size(file);
      Path wal = file.resolveSibling(file.getFileName() + "-wal");
      if (Files.exists(wal)) {
        size += Files.size(wal);
      }
      return size;
    } catch (IOException e) {
      throw new StoreException("cannot stat store " + file, e);
    }
  }

  /** One use of the store's connection that may fail with an SQL error. */
  @FunctionalInterface
  private interface SqlCall<T> {
    T on(Connection c) throws SQLException;
  }

  /** As {@link SqlCall}, with no result. */
  @FunctionalInterface
  private interface SqlRun {
    void on(Connection c) throws SQLException;
  }

  /**
   * Runs {@code call} on the connection; an SQL error becomes the store's error for {@code what}.
   */
  private <T> T call(String what, SqlCall<T> call) throws StoreException {
    try {
      return call.on(conn);
    } catch (SQLException e) {
      throw errors.fail(what, e);
    }
  }

  /** As {@link #call}, with no result. */
  private void run(String what, SqlRun run) throws StoreException {
    try {
      run.on(conn);
    } catch (SQLException e) {
      throw errors.fail(what, e);
    }
  }

  /** The statements of one transaction; a store error among them rolls it back too. */
  @FunctionalInterface
  private interface TransactionBody {
    void on(Connection c) throws SQLException, StoreException;
  }

  /**
   * Runs {@code body} in one transaction on the connection and commits it; on any error rolls it
   * back (an SQL error becomes the store's error for {@code what}).
   */
  private void inTransaction(String what, TransactionBody body) throws StoreException {
    try {
      conn.setAutoCommit(false);
      body.on(conn);
      conn.commit();
    } catch (SQLException e) {
      errors.rollbackQuietly();
      throw errors.fail(what, e);
    } catch (StoreException e) {
      errors.rollbackQuietly();
      throw e;
    } finally {
      errors.autoCommit();
    }
  }

  private void closeAppendStatements() throws SQLException {
    if (appendStatements != null) {
      AppendStatements st = appendStatements;
      appendStatements = null;
      st.close();
    }
  }

  @Override
  public synchronized void close() throws StoreException {
    try {
      closeAppendStatements();
      conn.close();
    } catch (SQLException e) {
      throw errors.fail("close", e);
    }
  }
}
