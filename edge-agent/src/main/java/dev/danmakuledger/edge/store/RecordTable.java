package dev.danmakuledger.edge.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * The {@code records} table: one row per log index with the canonical bytes (the Merkle leaf, RFC
 * 6962 §2.1), the columns exact dedupe reads, and the server outcome. {@code idempotency_key} is
 * UNIQUE, the last edge guard against a repeat the Bloom filter forgot. Capture transactions insert
 * through {@link AppendStatements}.
 */
final class RecordTable {
  private static final String COLUMNS =
      "idx, idempotency_key, content_hash, canonical, leaf_hash, captured_at, checkpoint_size,"
          + " outcome, seq, message_id, outcome_reason, synced_at, pruned_at";

  private RecordTable() {}

  /** Whether {@code e} is a UNIQUE constraint violation (a key already stored). */
  static boolean isUniqueViolation(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLiteException s
          && s.getResultCode() == SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE) {
        return true;
      }
    }
    return false;
  }

  /** The first key of {@code records} already in the table (after a UNIQUE violation). */
  static String firstStoredKey(Connection conn, List<NewRecord> records) throws SQLException {
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

  static Optional<StoredRecord> findByKey(Connection conn, String idempotencyKey)
      throws SQLException {
    try (PreparedStatement ps =
        conn.prepareStatement("SELECT " + COLUMNS + " FROM records WHERE idempotency_key = ?")) {
      ps.setString(1, idempotencyKey);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(row(rs)) : Optional.empty();
      }
    }
  }

  static List<StoredRecord> range(Connection conn, long fromIndex, int limit) throws SQLException {
    List<StoredRecord> out = new ArrayList<>();
    try (PreparedStatement ps =
        conn.prepareStatement(
            "SELECT " + COLUMNS + " FROM records WHERE idx >= ? ORDER BY idx LIMIT ?")) {
      ps.setLong(1, fromIndex);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(row(rs));
        }
      }
      return out;
    }
  }

  static void forEach(Connection conn, Predicate<StoredRecord> visitor) throws SQLException {
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + COLUMNS + " FROM records ORDER BY idx")) {
      while (rs.next()) {
        if (!visitor.test(row(rs))) {
          return;
        }
      }
    }
  }

  static List<String> keysFrom(Connection conn, long fromIndex) throws SQLException {
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
    }
  }

  static long count(Connection conn) throws SQLException {
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM records")) {
      return rs.next() ? rs.getLong(1) : 0;
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
}
