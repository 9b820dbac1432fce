package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upgrading a database written before confirmation cursors (migration V3): confirmed messages get
 * their seq as cursor, so a stream resumed with an event id an older server sent (a seq) continues
 * where it was, and later confirmations come after every old one; old signature failures become
 * attempt counts, and a message held for review is in the review queue (migration V14).
 */
final class CursorMigrationTest {
  @TempDir Path dir;

  @Test
  void confirmedMessagesKeepTheirSeqAsCursorAndNewConfirmationsFollow() throws Exception {
    String url = Database.h2Url(dir);
    Flyway.configure()
        .dataSource(url, null, null)
        .locations("classpath:db/migration")
        .placeholders(Map.of("tableOptions", ""))
        .target("1")
        .load()
        .migrate();
    try (Connection c = DriverManager.getConnection(url)) {
      message(c, 1, 101, "CONFIRMED");
      message(c, 2, 102, "PENDING");
      message(c, 3, 103, "CONFIRMED");
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO devices (id, public_key, verifier_key, status, verified_size,"
                  + " claimed_size, compact_range, root_hash, signature_failures, edge_checks,"
                  + " edge_maybe, edge_duplicates, edge_false_positives, version, created_at,"
                  + " updated_at, last_seen_at)"
                  + " VALUES ('kiosk', X'00', 'vk', 'ACTIVE', 0, 0, X'00', X'00', 5, 0, 0, 0, 0,"
                  + " 0, 0, 0, 42)")) {
        ps.executeUpdate();
      }
    }
    try (Database db = Database.open(url, null, null)) {
      ConfirmedFeed feed = new ConfirmedFeed(db);
      List<ConfirmedFeed.Confirmed> all = feed.after("r", 0, 0, 10);
      assertEquals(List.of(1L, 3L), all.stream().map(ConfirmedFeed.Confirmed::cursor).toList());
      assertEquals(List.of(1L, 3L), all.stream().map(x -> x.message().seq()).toList());
      assertEquals(
          List.of(3L), feed.after("r", 1, 0, 10).stream().map(x -> x.message().seq()).toList());
      MessageStore messages = new MessageStore(new Jdbc(db.dataSource()));
      assertEquals(
          List.of(102L), messages.pending(10).stream().map(MessageRow::messageId).toList());
      new ReviewStore(db, Clock.systemUTC())
          .decide(102, MessageStatus.CONFIRMED, 0, null, Map.of());
      assertEquals(List.of(), messages.pending(10));
      List<ConfirmedFeed.Confirmed> resumed = feed.after("r", 3, 0, 10);
      assertEquals(List.of(4L), resumed.stream().map(ConfirmedFeed.Confirmed::cursor).toList());
      assertEquals(2, resumed.get(0).message().seq());
      assertEquals(Map.of("kiosk", 5L), new SignatureAttempts(db).counts());
    }
  }

  private static void message(Connection c, long seq, long id, String status) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO messages (room, seq, message_id, idempotency_key, content_hash,"
                + " device_id, device_idx, user_id, text, playback_ms, mode, color, font_size,"
                + " hlc, status, reason, version, created_at, updated_at)"
                + " VALUES ('r', ?, ?, ?, 'h', 'kiosk', ?, 'u', 't', NULL, 1, 0, 25, 0, ?, NULL,"
                + " 0, 0, 0)")) {
      ps.setLong(1, seq);
      ps.setLong(2, id);
      ps.setString(3, "kiosk:u:1732950000000:" + String.format("%016x", id));
      ps.setLong(4, seq - 1);
      ps.setString(5, status);
      ps.executeUpdate();
    }
  }
}
