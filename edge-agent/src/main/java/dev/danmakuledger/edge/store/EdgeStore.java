package dev.danmakuledger.edge.store;

import dev.danmakuledger.edge.bloom.BloomSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * The device-log store: one SQLite file in WAL mode with {@code synchronous=FULL} by default, so a
 * commit has reached the disk before it returns (ARCHITECTURE §3, §6). Schema changes are ordered
 * migration scripts under {@code resources/dev/danmakuledger/edge/store}, applied once each and
 * recorded in {@code meta.schema_version}.
 *
 * <p>Thread-safe: every method runs under the store's monitor on one connection.
 */
public final class EdgeStore implements AutoCloseable {
  /** Migration scripts in order; the schema version is the number applied. */
  private static final List<String> MIGRATIONS = List.of("V1__device_log.sql", "V2__pruning.sql");

  static final String DB_FILE = "agent.db";

  private final Path file;
  private final Connection conn;

  private EdgeStore(Path file, Connection conn) {
    this.file = file;
    this.conn = conn;
  }

  /** The store file inside a data directory. */
  public static Path fileIn(Path dataDir) {
    return dataDir.resolve(DB_FILE);
  }

  /**
   * Opens (creating if needed) the store and applies pending migrations. Commands on an initialised
   * directory use {@link #openExisting} instead.
   *
   * @param durability {@code FULL} (the default: every commit is fsynced) or {@code NORMAL}
   */
  public static EdgeStore open(Path file, Durability durability) throws StoreException {
    createPrivately(file);
    EdgeStore store = connect(file, readWrite(durability));
    try {
      store.migrate();
    } catch (StoreException e) {
      store.close();
      throw e;
    }
    return store;
  }

  /**
   * Opens the store of an initialised data directory, applying pending migrations, but never
   * creates one: a missing, empty or schema-less file there means the log was lost or truncated,
   * and starting a fresh log would silently fork the device.
   *
   * @throws StoreException if the file is missing, empty or has no schema
   */
  public static EdgeStore openExisting(Path file, Durability durability) throws StoreException {
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
    EdgeStore store = connect(file, readWrite(durability));
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

  /**
   * Opens an existing store read-only without migrating it, for audits of a directory another
   * process may own.
   */
  public static EdgeStore openReadOnly(Path file) throws StoreException {
    if (!Files.isRegularFile(file)) {
      throw new StoreException("no store at " + file + "; run `edge-agent init` first");
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(5_000);
    EdgeStore store = connect(file, config);
    try {
      long version = store.schemaVersion();
      if (version == 0) {
        throw new StoreException(lostStore(file));
      }
      if (version != MIGRATIONS.size()) {
        throw new StoreException(
            "store "
                + file
                + " has schema version "
                + version
                + ", want "
                + MIGRATIONS.size()
                + " (open it with a writing command to migrate)");
      }
    } catch (StoreException e) {
      store.close();
      throw e;
    }
    return store;
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

  private static EdgeStore connect(Path file, SQLiteConfig config) throws StoreException {
    try {
      Connection conn = DriverManager.getConnection("jdbc:sqlite:" + file, config.toProperties());
      return new EdgeStore(file, conn);
    } catch (SQLException e) {
      throw new StoreException("cannot open store " + file + ": " + e.getMessage(), e);
    }
  }

  public Path file() {
    return file;
  }

  /** Number of migrations applied; 0 for a file without the schema. */
  public synchronized long schemaVersion() throws StoreException {
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'")) {
      if (!rs.next() || rs.getLong(1) == 0) {
        return 0;
      }
    } catch (SQLException e) {
      throw fail("read schema", e);
    }
    return meta("schema_version").map(Long::parseLong).orElse(0L);
  }

  private synchronized void migrate() throws StoreException {
    long version = schemaVersion();
    if (version > MIGRATIONS.size()) {
      throw new StoreException(
          "store "
              + file
              + " has schema version "
              + version
              + ", newer than this agent's "
              + MIGRATIONS.size());
    }
    for (int i = (int) version; i < MIGRATIONS.size(); i++) {
      String script = readScript(MIGRATIONS.get(i));
      try {
        conn.setAutoCommit(false);
        try (Statement st = conn.createStatement()) {
          for (String sql : script.split("\n;\n")) {
            if (!sql.isBlank()) {
              st.executeUpdate(sql);
            }
          }
          st.executeUpdate(
              "INSERT INTO meta(name, value) VALUES ('schema_version', '"
                  + (i + 1)
                  + "') ON CONFLICT(name) DO UPDATE SET value = excluded.value");
          if (i == 0) {
            st.executeUpdate("INSERT INTO log_state(id, size, compact_range) VALUES (0, 0, x'')");
          }
        }
        conn.commit();
      } catch (SQLException e) {
        rollbackQuietly();
        throw fail("apply migration " + MIGRATIONS.get(i), e);
      } finally {
        autoCommit();
      }
    }
  }

  private static String readScript(String name) throws StoreException {
    try (InputStream in = EdgeStore.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new StoreException("migration script " + name + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new StoreException("cannot read migration script " + name, e);
    }
  }

  /** A value from the meta table (device id, creation time, schema version). */
  public synchronized Optional<String> meta(String name) throws StoreException {
    try (PreparedStatement ps = conn.prepareStatement("SELECT value FROM meta WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw fail("read meta " + name, e);
    }
  }

  public synchronized void putMeta(String name, String value) throws StoreException {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "INSERT INTO meta(name, value) VALUES (?, ?) "
                + "ON CONFLICT(name) DO UPDATE SET value = excluded.value")) {
      ps.setString(1, name);
      ps.setString(2, value);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw fail("write meta " + name, e);
    }
  }

  /** The committed log size and compact range. */
  public synchronized LogStateRow logState() throws StoreException {
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT size, compact_range FROM log_state WHERE id = 0")) {
      if (!rs.next()) {
        throw new StoreException("store " + file + " has no log_state row");
      }
      return new LogStateRow(rs.getLong(1), rs.getBytes(2));
    } catch (SQLException e) {
      throw fail("read log state", e);
    }
  }

  /**
   * Writes one capture batch in one transaction: records, the checkpoint covering them, the new
   * compact range, counters. Returns after the commit is durable.
   *
   * @throws DuplicateKeyException if a key is already stored; nothing was written
   */
  public synchronized void append(AppendBatch batch) throws StoreException {
    try {
      conn.setAutoCommit(false);
      try (PreparedStatement size =
              conn.prepareStatement("SELECT size FROM log_state WHERE id = 0");
          ResultSet rs = size.executeQuery()) {
        long committed = rs.next() ? rs.getLong(1) : -1;
        if (committed != batch.oldSize()) {
          throw new StoreException(
              "append at size "
                  + batch.oldSize()
                  + ": got that, want the committed size "
                  + committed);
        }
      }
      if (!batch.records().isEmpty()) {
        try (PreparedStatement ps =
            conn.prepareStatement(
                "INSERT INTO records(idx, idempotency_key, content_hash, canonical, leaf_hash,"
                    + " captured_at, checkpoint_size) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
          for (NewRecord r : batch.records()) {
            ps.setLong(1, r.index());
            ps.setString(2, r.idempotencyKey());
            ps.setString(3, r.contentHash());
            ps.setBytes(4, r.canonical());
            ps.setBytes(5, r.leafHash());
            ps.setLong(6, r.capturedAt());
            ps.setLong(7, batch.newSize());
            ps.addBatch();
          }
          try {
            ps.executeBatch();
          } catch (SQLException e) {
            if (isUniqueViolation(e)) {
              rollbackQuietly();
              String key = firstStoredKey(batch.records());
              throw new DuplicateKeyException(key, e);
            }
            throw e;
          }
        }
        try (PreparedStatement ps =
            conn.prepareStatement(
                "INSERT INTO checkpoints(size, note, created_at) VALUES (?, ?, ?)")) {
          ps.setLong(1, batch.newSize());
          ps.setString(2, batch.checkpointNote());
          ps.setLong(3, batch.createdAt());
          ps.executeUpdate();
        }
        try (PreparedStatement ps =
            conn.prepareStatement(
                "UPDATE log_state SET size = ?, compact_range = ? WHERE id = 0")) {
          ps.setLong(1, batch.newSize());
          ps.setBytes(2, batch.compactRange());
          ps.executeUpdate();
        }
      }
      addCounters(batch.counterDeltas());
      conn.commit();
    } catch (SQLException e) {
      rollbackQuietly();
      throw fail("append records [" + batch.oldSize() + ", " + batch.newSize() + ")", e);
    } catch (StoreException e) {
      rollbackQuietly();
      throw e;
    } finally {
      autoCommit();
    }
  }

  private static boolean isUniqueViolation(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLiteException s
          && s.getResultCode() == SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE) {
        return true;
      }
    }
    return false;
  }

  /** The first key of {@code records} already in the table (after a UNIQUE violation). */
  private String firstStoredKey(List<NewRecord> records) throws SQLException {
    try (PreparedStatement ps =
        conn.prepareStatement("SELECT 1 FROM records WHERE idempotency_key = ?")) {
      for (NewRecord r : records) {
        ps.setString(1, r.idempotencyKey());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return r.idempotencyKey();
          }
        }
      }
    }
    return records.get(0).idempotencyKey();
  }

  private void addCounters(Map<String, Long> deltas) throws SQLException {
    if (deltas.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        conn.prepareStatement(
            "INSERT INTO counters(name, value) VALUES (?, ?) "
                + "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value")) {
      for (Map.Entry<String, Long> d : deltas.entrySet()) {
        if (d.getValue() != 0) {
          ps.setString(1, d.getKey());
          ps.setLong(2, d.getValue());
          ps.executeUpdate();
        }
      }
    }
  }

  /** Adds to counters outside a capture (in their own transaction). */
  public synchronized void incrementCounters(Map<String, Long> deltas) throws StoreException {
    try {
      addCounters(deltas);
    } catch (SQLException e) {
      throw fail("update counters", e);
    }
  }

  /** All counters by name. */
  public synchronized Map<String, Long> counters() throws StoreException {
    Map<String, Long> out = new LinkedHashMap<>();
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT name, value FROM counters ORDER BY name")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
      return out;
    } catch (SQLException e) {
      throw fail("read counters", e);
    }
  }

  private static final String RECORD_COLUMNS =
      "idx, idempotency_key, content_hash, canonical, leaf_hash, captured_at, checkpoint_size,"
          + " outcome, seq, message_id, outcome_reason, synced_at, pruned_at";

  /** The record stored under an idempotency key. */
  public synchronized Optional<StoredRecord> findByKey(String idempotencyKey)
      throws StoreException {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "SELECT " + RECORD_COLUMNS + " FROM records WHERE idempotency_key = ?")) {
      ps.setString(1, idempotencyKey);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(row(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw fail("look up key " + idempotencyKey, e);
    }
  }

  /** Up to {@code limit} records with index >= {@code fromIndex}, in index order. */
  public synchronized List<StoredRecord> records(long fromIndex, int limit) throws StoreException {
    List<StoredRecord> out = new ArrayList<>();
    try (PreparedStatement ps =
        conn.prepareStatement(
            "SELECT " + RECORD_COLUMNS + " FROM records WHERE idx >= ? ORDER BY idx LIMIT ?")) {
      ps.setLong(1, fromIndex);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(row(rs));
        }
      }
      return out;
    } catch (SQLException e) {
      throw fail("read records from " + fromIndex, e);
    }
  }

  /** Streams records in index order while {@code visitor} returns true. */
  public synchronized void forEachRecord(Predicate<StoredRecord> visitor) throws StoreException {
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + RECORD_COLUMNS + " FROM records ORDER BY idx")) {
      while (rs.next()) {
        if (!visitor.test(row(rs))) {
          return;
        }
      }
    } catch (SQLException e) {
      throw fail("scan records", e);
    } catch (IllegalArgumentException e) {
      throw new StoreException("malformed record row: " + e.getMessage(), e);
    }
  }

  /** The idempotency keys of the records with index >= {@code fromIndex}, in index order. */
  public synchronized List<String> keysFrom(long fromIndex) throws StoreException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps =
        conn.prepareStatement("SELECT idempotency_key FROM records WHERE idx >= ? ORDER BY idx")) {
      ps.setLong(1, fromIndex);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      return out;
    } catch (SQLException e) {
      throw fail("read keys from " + fromIndex, e);
    }
  }

  private static StoredRecord row(ResultSet rs) throws SQLException {
    long seq = rs.getLong(9);
    Long seqOrNull = rs.wasNull() ? null : seq;
    long synced = rs.getLong(12);
    Long syncedOrNull = rs.wasNull() ? null : synced;
    long pruned = rs.getLong(13);
    Long prunedOrNull = rs.wasNull() ? null : pruned;
    return new StoredRecord(
        rs.getLong(1),
        rs.getString(2),
        rs.getString(3),
        rs.getBytes(4),
        rs.getBytes(5),
        rs.getLong(6),
        rs.getLong(7),
        rs.getString(8),
        seqOrNull,
        rs.getString(10),
        rs.getString(11),
        syncedOrNull,
        prunedOrNull);
  }

  /** Number of rows in the records table (independent of log_state). */
  public synchronized long recordCount() throws StoreException {
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM records")) {
      return rs.next() ? rs.getLong(1) : 0;
    } catch (SQLException e) {
      throw fail("count records", e);
    }
  }

  /** Record counts by server outcome; records not yet synced count under "UNSYNCED". */
  public synchronized Map<String, Long> outcomeCounts() throws StoreException {
    Map<String, Long> out = new LinkedHashMap<>();
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT coalesce(outcome, 'UNSYNCED'), count(*) FROM records GROUP BY 1 ORDER BY 1")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
      return out;
    } catch (SQLException e) {
      throw fail("count outcomes", e);
    }
  }

  /** Stores server outcomes for records (sync client). */
  public synchronized void applyOutcomes(List<OutcomeUpdate> updates) throws StoreException {
    try {
      conn.setAutoCommit(false);
      try (PreparedStatement ps =
          conn.prepareStatement(
              "UPDATE records SET outcome = ?, seq = ?, message_id = ?, outcome_reason = ?,"
                  + " synced_at = ? WHERE idx = ?")) {
        for (OutcomeUpdate u : updates) {
          ps.setString(1, u.outcome());
          if (u.seq() == null) {
            ps.setNull(2, java.sql.Types.INTEGER);
          } else {
            ps.setLong(2, u.seq());
          }
          ps.setString(3, u.messageId());
          ps.setString(4, u.reason());
          ps.setLong(5, u.syncedAt());
          ps.setLong(6, u.index());
          if (ps.executeUpdate() != 1) {
            throw new StoreException("outcome for index " + u.index() + ": got no such record");
          }
        }
      }
      conn.commit();
    } catch (SQLException e) {
      rollbackQuietly();
      throw fail("store outcomes", e);
    } catch (StoreException e) {
      rollbackQuietly();
      throw e;
    } finally {
      autoCommit();
    }
  }

  /** Stores a server receipt (cosigned checkpoint note) for a log size. */
  public synchronized void saveReceipt(long size, String note, long receivedAt)
      throws StoreException {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "INSERT INTO receipts(size, note, received_at) VALUES (?, ?, ?) "
                + "ON CONFLICT(size) DO UPDATE SET note = excluded.note,"
                + " received_at = excluded.received_at")) {
      ps.setLong(1, size);
      ps.setString(2, note);
      ps.setLong(3, receivedAt);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw fail("store receipt for size " + size, e);
    }
  }

  /** The receipt for the largest size, if any. */
  public synchronized Optional<StoredCheckpoint> latestReceipt() throws StoreException {
    return latest("SELECT size, note, received_at FROM receipts ORDER BY size DESC LIMIT 1");
  }

  /** The checkpoint for the largest size, if any. */
  public synchronized Optional<StoredCheckpoint> latestCheckpoint() throws StoreException {
    return latest("SELECT size, note, created_at FROM checkpoints ORDER BY size DESC LIMIT 1");
  }

  private Optional<StoredCheckpoint> latest(String sql) throws StoreException {
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return rs.next()
          ? Optional.of(new StoredCheckpoint(rs.getLong(1), rs.getString(2), rs.getLong(3)))
          : Optional.empty();
    } catch (SQLException e) {
      throw fail("read latest note", e);
    }
  }

  /** Every stored checkpoint, by size. */
  public synchronized List<StoredCheckpoint> checkpoints() throws StoreException {
    List<StoredCheckpoint> out = new ArrayList<>();
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT size, note, created_at FROM checkpoints ORDER BY size")) {
      while (rs.next()) {
        out.add(new StoredCheckpoint(rs.getLong(1), rs.getString(2), rs.getLong(3)));
      }
      return out;
    } catch (SQLException e) {
      throw fail("read checkpoints", e);
    } catch (IllegalArgumentException e) {
      throw new StoreException("malformed checkpoint row: " + e.getMessage(), e);
    }
  }

  /** Replaces the Bloom snapshot (its own transaction). */
  public synchronized void saveBloom(BloomSnapshot s) throws StoreException {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "INSERT OR REPLACE INTO bloom_snapshot(id, expected_items, false_positive,"
                + " covered_size, current_started_at, rotations, current_items, current_bits,"
                + " previous_items, previous_bits) VALUES (0, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setLong(1, s.expectedItems());
      ps.setDouble(2, s.falsePositiveRate());
      ps.setLong(3, s.coveredSize());
      ps.setLong(4, s.currentStartedAt());
      ps.setLong(5, s.rotations());
      ps.setLong(6, s.currentItems());
      ps.setBytes(7, s.currentBits());
      ps.setLong(8, s.previousItems());
      ps.setBytes(9, s.previousBits());
      ps.executeUpdate();
    } catch (SQLException e) {
      throw fail("save bloom snapshot", e);
    }
  }

  /** The Bloom snapshot, if one was saved. */
  public synchronized Optional<BloomSnapshot> loadBloom() throws StoreException {
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT expected_items, false_positive, covered_size, current_started_at,"
                    + " rotations, current_items, current_bits, previous_items, previous_bits"
                    + " FROM bloom_snapshot WHERE id = 0")) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(
          new BloomSnapshot(
              rs.getLong(1),
              rs.getDouble(2),
              rs.getLong(3),
              rs.getLong(4),
              rs.getLong(5),
              rs.getLong(6),
              rs.getBytes(7),
              rs.getLong(8),
              rs.getBytes(9)));
    } catch (SQLException e) {
      throw fail("load bloom snapshot", e);
    }
  }

  /**
   * Drops the canonical bytes of every record that may be pruned (docs/edge-agent.md "Retention and
   * pruning"): index below {@code coveredSize} (the size of the latest stored receipt) and below
   * {@code keepFrom}, a final server outcome stored, captured at or before {@code capturedBefore},
   * not pruned yet. A final outcome is CONFIRMED, DUPLICATE, CONFLICT or REJECTED; PENDING may
   * still change. Index, key, content hash, leaf hash and outcome stay. One transaction.
   *
   * @return the number of records pruned
   */
  public synchronized long prune(long coveredSize, long keepFrom, long capturedBefore, long now)
      throws StoreException {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "UPDATE records SET canonical = x'', pruned_at = ? WHERE pruned_at IS NULL"
                + " AND idx < ? AND idx < ? AND captured_at <= ?"
                + " AND outcome IN ('CONFIRMED', 'DUPLICATE', 'CONFLICT', 'REJECTED')")) {
      ps.setLong(1, now);
      ps.setLong(2, coveredSize);
      ps.setLong(3, keepFrom);
      ps.setLong(4, capturedBefore);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw fail("prune records", e);
    }
  }

  /** Number of records whose canonical bytes were pruned. */
  public synchronized long prunedCount() throws StoreException {
    try (Statement st = conn.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT count(*) FROM records WHERE pruned_at IS NOT NULL")) {
      return rs.next() ? rs.getLong(1) : 0;
    } catch (SQLException e) {
      throw fail("count pruned records", e);
    }
  }

  /**
   * Gives the pages freed by pruning back to the file system: checkpoints the write-ahead log and
   * rebuilds the database file ({@code VACUUM}).
   */
  public synchronized void compact() throws StoreException {
    try (Statement st = conn.createStatement()) {
      st.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      st.executeUpdate("VACUUM");
      st.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (SQLException e) {
      throw fail("compact the store", e);
    }
  }

  /** Bytes on disk: the database file plus its write-ahead log. */
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

  private StoreException fail(String what, SQLException e) {
    return new StoreException("cannot " + what + " in " + file + ": " + e.getMessage(), e);
  }

  private void rollbackQuietly() {
    try {
      conn.rollback();
    } catch (SQLException ignored) {
      // The connection is already unusable; the original error is the one to report.
    }
  }

  private void autoCommit() {
    try {
      conn.setAutoCommit(true);
    } catch (SQLException ignored) {
      // Reported by the next statement on this connection.
    }
  }

  @Override
  public synchronized void close() throws StoreException {
    try {
      conn.close();
    } catch (SQLException e) {
      throw fail("close", e);
    }
  }
}
