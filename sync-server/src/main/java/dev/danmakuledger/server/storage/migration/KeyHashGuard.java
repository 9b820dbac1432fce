package dev.danmakuledger.server.storage.migration;

import dev.danmakuledger.server.storage.KeyHash;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.migration.Context;

/**
 * Migration 12 (docs/architecture.md §5, "Three duplicate checks"): moves the messages' UNIQUE
 * guard from the idempotency key to its {@link KeyHash}. It adds the nullable column {@code
 * key_hash}, fills it for every stored message ({@value #CHUNK} rows at a time in primary-key
 * order, each chunk committing on its own, so that a large table does not become one huge
 * transaction), creates {@code UNIQUE (key_hash)} and then drops {@code UNIQUE (idempotency_key)}.
 * Every step checks first whether it is done, so a rerun after a crash carries on where it stopped.
 * The same code runs on H2 and MariaDB/MySQL; only the statement that drops the old guard differs
 * (a constraint on H2, an index on MySQL).
 */
final class KeyHashGuard extends MigrationOutsideTransaction {
  /** Rows hashed per chunk. */
  static final int CHUNK = 1_000;

  KeyHashGuard() {
    super("12", "messages guarded by key hash");
  }

  @Override
  public void migrate(Context context) throws SQLException {
    Connection c = context.getConnection();
    boolean h2 = c.getMetaData().getDatabaseProductName().startsWith("H2");
    if (!hasColumn(c)) {
      execute(c, "ALTER TABLE messages ADD COLUMN key_hash VARBINARY(16) NULL");
    }
    fill(c);
    if (!hasIndex(c, "uq_messages_key_hash")) {
      execute(c, "CREATE UNIQUE INDEX uq_messages_key_hash ON messages (key_hash)");
    }
    if (h2 ? hasConstraint(c, "uq_messages_key") : hasIndex(c, "uq_messages_key")) {
      execute(
          c,
          h2
              ? "ALTER TABLE messages DROP CONSTRAINT uq_messages_key"
              : "ALTER TABLE messages DROP INDEX uq_messages_key");
    }
  }

  /** Hashes the keys of the messages that have none yet, in primary-key order. */
  private static void fill(Connection c) throws SQLException {
    String select =
        "SELECT room, seq, idempotency_key FROM messages"
            + " WHERE key_hash IS NULL AND idempotency_key IS NOT NULL";
    String after = " AND (room > ? OR (room = ? AND seq > ?))";
    String order = " ORDER BY room, seq LIMIT " + CHUNK;
    try (PreparedStatement first = c.prepareStatement(select + order);
        PreparedStatement next = c.prepareStatement(select + after + order);
        PreparedStatement update =
            c.prepareStatement("UPDATE messages SET key_hash = ? WHERE room = ? AND seq = ?")) {
      PreparedStatement read = first;
      while (true) {
        String room = null;
        long seq = 0;
        int rows = 0;
        try (ResultSet rs = read.executeQuery()) {
          while (rs.next()) {
            room = rs.getString(1);
            seq = rs.getLong(2);
            update.setBytes(1, KeyHash.of(rs.getString(3)));
            update.setString(2, room);
            update.setLong(3, seq);
            update.addBatch();
            rows++;
          }
        }
        if (rows == 0) {
          return;
        }
        update.executeBatch();
        if (!c.getAutoCommit()) {
          c.commit();
        }
        next.setString(1, room);
        next.setString(2, room);
        next.setLong(3, seq);
        read = next;
      }
    }
  }

  /** Whether {@code messages.key_hash} exists (names are lower case on H2 and on MySQL). */
  private static boolean hasColumn(Connection c) throws SQLException {
    try (ResultSet rs = c.getMetaData().getColumns(c.getCatalog(), null, "messages", "key_hash")) {
      return rs.next();
    }
  }

  private static boolean hasIndex(Connection c, String name) throws SQLException {
    try (ResultSet rs =
        c.getMetaData().getIndexInfo(c.getCatalog(), null, "messages", false, false)) {
      while (rs.next()) {
        if (name.equalsIgnoreCase(rs.getString("INDEX_NAME"))) {
          return true;
        }
      }
    }
    return false;
  }

  /** A named constraint of {@code messages} on H2, where a UNIQUE constraint owns its index. */
  private static boolean hasConstraint(Connection c, String name) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT 1 FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS"
                + " WHERE LOWER(TABLE_NAME) = 'messages' AND LOWER(CONSTRAINT_NAME) = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.executeUpdate(sql);
    }
  }
}
