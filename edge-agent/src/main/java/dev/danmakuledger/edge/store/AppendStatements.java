package dev.danmakuledger.edge.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * The statements of a capture transaction ({@link SqliteEdgeStore#append}), prepared once per
 * connection rather than once per transaction. A batch's records go in through one single-row
 * {@code INSERT} run as a JDBC batch (sqlite-jdbc steps it once per row without leaving the
 * statement; measured faster than multi-row {@code INSERT}s of 128 rows, docs/benchmarks.md "edge:
 * agent capture against a raw sqlite-jdbc insert"); a single durable capture is one plain step.
 *
 * <p>Used under the store's monitor only.
 */
final class AppendStatements implements AutoCloseable {
  private final PreparedStatement record;
  private final PreparedStatement committedSize;
  private final PreparedStatement checkpoint;
  private final PreparedStatement logState;
  private final PreparedStatement counter;

  AppendStatements(Connection conn) throws SQLException {
    record =
        conn.prepareStatement(
            "INSERT INTO records(idx, idempotency_key, content_hash, canonical, leaf_hash,"
                + " captured_at, checkpoint_size) VALUES (?, ?, ?, ?, ?, ?, ?)");
    committedSize = conn.prepareStatement("SELECT size FROM log_state WHERE id = 0");
    checkpoint =
        conn.prepareStatement("INSERT INTO checkpoints(size, note, created_at) VALUES (?, ?, ?)");
    logState =
        conn.prepareStatement(
            "UPDATE log_state SET size = ?, compact_range = ? WHERE id = 0 AND size = ?");
    counter =
        conn.prepareStatement(
            "INSERT INTO counters(name, value) VALUES (?, ?) "
                + "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value");
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
    if (records.size() == 1) {
      bind(records.get(0), batch.newSize());
      record.executeUpdate();
      return;
    }
    try {
      for (NewRecord r : records) {
        bind(r, batch.newSize());
        record.addBatch();
      }
      record.executeBatch();
    } finally {
      record.clearBatch();
    }
  }

  private void bind(NewRecord r, long checkpointSize) throws SQLException {
    record.setLong(1, r.index());
    record.setString(2, r.idempotencyKey());
    record.setString(3, r.contentHash());
    record.setBytes(4, r.canonical());
    record.setBytes(5, r.leafHash());
    record.setLong(6, r.capturedAt());
    record.setLong(7, checkpointSize);
  }

  void insertCheckpoint(long size, String note, long createdAt) throws SQLException {
    checkpoint.setLong(1, size);
    checkpoint.setString(2, note);
    checkpoint.setLong(3, createdAt);
    checkpoint.executeUpdate();
  }

  /**
   * Moves the log state from {@code oldSize} to {@code newSize} with {@code compactRange}.
   *
   * @return false, changing nothing, if the committed size is not {@code oldSize}
   */
  boolean advanceLogState(long oldSize, long newSize, byte[] compactRange) throws SQLException {
    logState.setLong(1, newSize);
    logState.setBytes(2, compactRange);
    logState.setLong(3, oldSize);
    return logState.executeUpdate() == 1;
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
    for (PreparedStatement ps : List.of(record, committedSize, checkpoint, logState, counter)) {
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
