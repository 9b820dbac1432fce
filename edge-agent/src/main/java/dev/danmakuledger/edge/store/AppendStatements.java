package dev.danmakuledger.edge.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * The statements of a capture transaction ({@link SqliteEdgeStore#append}), prepared once per
 * connection rather than once per transaction. Records go in as multi-row {@code INSERT}s of
 * {@value #ROWS_PER_INSERT} rows (one statement step per chunk instead of one per row, the log
 * index and checkpoint size bound once per chunk), the rest one row at a time, so a single durable
 * capture costs one short {@code INSERT} as before.
 *
 * <p>Used under the store's monitor only.
 */
final class AppendStatements implements AutoCloseable {
  /** Rows per multi-row insert: 2 + 5 × 128 = 642 parameters, under SQLite's historic 999. */
  static final int ROWS_PER_INSERT = 128;

  private final PreparedStatement chunk;
  private final PreparedStatement single;
  private final PreparedStatement committedSize;
  private final PreparedStatement checkpoint;
  private final PreparedStatement logState;
  private final PreparedStatement counter;

  AppendStatements(Connection conn) throws SQLException {
    chunk = conn.prepareStatement(chunkSql(ROWS_PER_INSERT));
    single = conn.prepareStatement(chunkSql(1));
    committedSize = conn.prepareStatement("SELECT size FROM log_state WHERE id = 0");
    checkpoint =
        conn.prepareStatement("INSERT INTO checkpoints(size, note, created_at) VALUES (?, ?, ?)");
    logState =
        conn.prepareStatement("UPDATE log_state SET size = ?, compact_range = ? WHERE id = 0");
    counter =
        conn.prepareStatement(
            "INSERT INTO counters(name, value) VALUES (?, ?) "
                + "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value");
  }

  /**
   * {@code INSERT ... VALUES (?1 + 0, ?3, ...), (?1 + 1, ...)}: parameter 1 is the index of the
   * chunk's first row, 2 the checkpoint size of the batch, then five per row.
   */
  static String chunkSql(int rows) {
    StringBuilder sql =
        new StringBuilder(
            "INSERT INTO records(idx, idempotency_key, content_hash, canonical, leaf_hash,"
                + " captured_at, checkpoint_size) VALUES ");
    for (int j = 0; j < rows; j++) {
      int p = 3 + 5 * j;
      if (j > 0) {
        sql.append(", ");
      }
      sql.append("(?1 + ")
          .append(j)
          .append(", ?")
          .append(p)
          .append(", ?")
          .append(p + 1)
          .append(", ?")
          .append(p + 2)
          .append(", ?")
          .append(p + 3)
          .append(", ?")
          .append(p + 4)
          .append(", ?2)");
    }
    return sql.toString();
  }

  /** The committed log size, -1 without a log_state row. */
  long committedSize() throws SQLException {
    try (var rs = committedSize.executeQuery()) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  /**
   * Inserts the batch's records (consecutive indexes from {@code batch.oldSize()}).
   *
   * @throws DuplicateKeyException if a key is already stored (the caller rolls back)
   */
  void insertRecords(Connection conn, AppendBatch batch)
      throws SQLException, DuplicateKeyException {
    try {
      insertRecords(batch);
    } catch (SQLException e) {
      if (RecordTable.isUniqueViolation(e)) {
        try {
          conn.rollback();
        } catch (SQLException ignored) {
          // The caller rolls back again; the duplicate is the error to report.
        }
        throw new DuplicateKeyException(RecordTable.firstStoredKey(conn, batch.records()), e);
      }
      throw e;
    }
  }

  private void insertRecords(AppendBatch batch) throws SQLException {
    List<NewRecord> records = batch.records();
    int n = records.size();
    int i = 0;
    for (; i + ROWS_PER_INSERT <= n; i += ROWS_PER_INSERT) {
      bind(chunk, records, i, ROWS_PER_INSERT, batch.newSize());
      chunk.executeUpdate();
    }
    for (; i < n; i++) {
      bind(single, records, i, 1, batch.newSize());
      single.executeUpdate();
    }
  }

  private static void bind(
      PreparedStatement ps, List<NewRecord> records, int from, int rows, long checkpointSize)
      throws SQLException {
    ps.setLong(1, records.get(from).index());
    ps.setLong(2, checkpointSize);
    for (int j = 0; j < rows; j++) {
      NewRecord r = records.get(from + j);
      int p = 3 + 5 * j;
      ps.setString(p, r.idempotencyKey());
      ps.setString(p + 1, r.contentHash());
      ps.setBytes(p + 2, r.canonical());
      ps.setBytes(p + 3, r.leafHash());
      ps.setLong(p + 4, r.capturedAt());
    }
  }

  void insertCheckpoint(long size, String note, long createdAt) throws SQLException {
    checkpoint.setLong(1, size);
    checkpoint.setString(2, note);
    checkpoint.setLong(3, createdAt);
    checkpoint.executeUpdate();
  }

  void updateLogState(long size, byte[] compactRange) throws SQLException {
    logState.setLong(1, size);
    logState.setBytes(2, compactRange);
    logState.executeUpdate();
  }

  /** Adds the non-zero deltas, in the caller's transaction. */
  void addCounters(Map<String, Long> deltas) throws SQLException {
    for (Map.Entry<String, Long> d : deltas.entrySet()) {
      if (d.getValue() != 0) {
        counter.setString(1, d.getKey());
        counter.setLong(2, d.getValue());
        counter.executeUpdate();
      }
    }
  }

  @Override
  public void close() throws SQLException {
    SQLException first = null;
    for (PreparedStatement ps :
        List.of(chunk, single, committedSize, checkpoint, logState, counter)) {
      try {
        ps.close();
      } catch (SQLException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
