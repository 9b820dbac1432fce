package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.server.storage.migration.Migrations;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.migration.JavaMigration;
import org.junit.jupiter.api.Test;

/**
 * Upgrading a database whose messages are guarded by {@code UNIQUE (idempotency_key)} (before
 * migration 12): every stored message gets its key hash, whichever chunk it falls in, tombstones
 * keep none, the new guard refuses a stored key, the old one is gone, and a rerun changes nothing.
 */
abstract class KeyHashMigrationContract extends MigrationContract {
  /**
   * Messages across three rooms: more than two chunks of the migration (1,000 rows each), the last
   * one short.
   */
  private static final int MESSAGES = 2 * 1_000 + 345;

  @Test
  void storedMessagesGetTheirKeyHashAndTheGuardMovesToIt() throws Exception {
    String url = freshDatabase();
    Flyway.configure()
        .dataSource(url, null, null)
        .locations("classpath:db/migration")
        .javaMigrations(Migrations.java().toArray(JavaMigration[]::new))
        .placeholders(Map.of("tableOptions", tableOptions()))
        .target("11")
        .load()
        .migrate();
    try (Connection c = DriverManager.getConnection(url)) {
      c.setAutoCommit(false);
      for (int i = 0; i < MESSAGES; i++) {
        insert(c, "room-" + (i % 3), 1 + i / 3, key(i), 1000 + i);
      }
      insert(c, "room-0", 1_000_000, null, null); // a tombstone: no key, no hash
      c.commit();
    }

    try (Database db = Database.open(url, null, null)) {
      LedgerStore store = new LedgerStore(db, Clock.systemUTC());
      try (Connection c = db.dataSource().getConnection()) {
        assertEquals(MESSAGES, hashesMatchingKeys(c));
        assertNull(hashOf(c, "room-0", 1_000_000));
        assertTrue(store.messageByKey(key(0)).isPresent());
        assertEquals(1000 + MESSAGES - 1, store.messageByKey(key(MESSAGES - 1)).get().messageId());
        assertEquals(
            List.of(key(7), key(2_001)).stream().sorted().toList(),
            store.messagesByKeys(List.of(key(7), key(2_001), "kiosk:u:1:none")).keySet().stream()
                .sorted()
                .toList());

        SQLException taken =
            assertThrows(SQLException.class, () -> insertHashed(c, "room-9", 1, key(5), 99_999));
        assertTrue(Jdbc.isUniqueViolation(taken), taken.toString());
        // run again (as after a crash before Flyway recorded it): nothing left to do
        javaMigration("12").migrate(context(c));
        assertEquals(MESSAGES, hashesMatchingKeys(c));

        // the old guard over the key itself is gone: only the hash column guards now
        insert(c, "room-9", 2, key(5), 99_998);
      }
    }
  }

  private static String key(int i) {
    return "kiosk:u" + (i % 17) + ":" + (1_732_950_000_000L + i) + ":" + String.format("%016x", i);
  }

  /** Messages whose stored key hash is the hash of their stored key. */
  private static int hashesMatchingKeys(Connection c) throws SQLException {
    int matching = 0;
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT idempotency_key, key_hash FROM messages WHERE message_id < 99998")) {
      while (rs.next()) {
        if (rs.getString(1) != null) {
          assertArrayEquals(KeyHash.of(rs.getString(1)), rs.getBytes(2), rs.getString(1));
          matching++;
        }
      }
    }
    return matching;
  }

  private static byte[] hashOf(Connection c, String room, long seq) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT key_hash FROM messages WHERE room = ? AND seq = ?")) {
      ps.setString(1, room);
      ps.setLong(2, seq);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next());
        return rs.getBytes(1);
      }
    }
  }

  private static final String INSERT =
      "INSERT INTO messages (room, seq, message_id, idempotency_key, content_hash, device_id,"
          + " device_idx, user_id, text, playback_ms, mode, color, font_size, hlc, status, reason,"
          + " version, created_at, updated_at";

  /** A message row as written before migration 12, without a key hash. */
  private static void insert(Connection c, String room, long seq, String key, Integer id)
      throws SQLException {
    insert(c, room, seq, key, id, false);
  }

  /** A message row with its key hash, as the server writes it after migration 12. */
  private static void insertHashed(Connection c, String room, long seq, String key, int id)
      throws SQLException {
    insert(c, room, seq, key, id, true);
  }

  private static void insert(
      Connection c, String room, long seq, String key, Integer id, boolean hashed)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            INSERT
                + (hashed ? ", key_hash" : "")
                + ") VALUES (?, ?, ?, ?, 'h', 'kiosk', ?, 'u', 't', NULL, 1, 0, 25, 0, ?, NULL,"
                + " 0, 0, 0"
                + (hashed ? ", ?)" : ")"))) {
      bind(ps, room, seq, key, id);
      if (hashed) {
        ps.setBytes(7, KeyHash.of(key));
      }
      ps.executeUpdate();
    }
  }

  private static void bind(PreparedStatement ps, String room, long seq, String key, Integer id)
      throws SQLException {
    ps.setString(1, room);
    ps.setLong(2, seq);
    Jdbc.setLong(ps, 3, id == null ? null : id.longValue());
    ps.setString(4, key);
    Jdbc.setLong(ps, 5, key == null ? null : seq - 1);
    ps.setString(6, key == null ? "TOMBSTONE" : "CONFIRMED");
  }
}
