package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A review decision, its counters and its confirmation cursor are one transaction, and cursors of a
 * room follow the order of confirmation (on H2, the embedded backend).
 */
final class ReviewStoreTest {
  @TempDir Path dir;
  Database db;
  ReviewStore reviews;
  ConfirmedFeed feed;

  @BeforeEach
  void open() {
    db = Database.open(Database.h2Url(dir), null, null);
    reviews = new ReviewStore(db, Clock.systemUTC());
    feed = new ConfirmedFeed(db);
  }

  @AfterEach
  void close() {
    db.close();
  }

  void insert(String room, long seq, long messageId, MessageStatus status) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO messages (room, seq, message_id, idempotency_key, content_hash,"
                    + " device_id, device_idx, user_id, text, playback_ms, mode, color, font_size,"
                    + " hlc, status, reason, version, created_at, updated_at)"
                    + " VALUES (?, ?, ?, ?, 'h', 'd', ?, 'u', ?, NULL, 1, 0, 25, 0, ?, NULL, 0, 0, 0)")) {
      ps.setString(1, room);
      ps.setLong(2, seq);
      ps.setLong(3, messageId);
      ps.setString(4, "d:u:1732950000000:" + String.format("%016x", messageId));
      ps.setLong(5, seq - 1);
      ps.setString(6, "text " + seq);
      ps.setString(7, status.name());
      ps.executeUpdate();
    }
    if (status == MessageStatus.CONFIRMED) {
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        ConfirmedCursors.assign(c, List.of(row(room, seq, status)));
        c.commit();
      }
    }
  }

  static MessageRow row(String room, long seq, MessageStatus status) {
    return new MessageRow(
        room, seq, seq, "k" + seq, "h", "d", seq - 1, "u", "t", null, 1, 0, 25, 0, status, null, 0);
  }

  long counter(String name) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT COALESCE(SUM(counter_value), 0) FROM counters WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void aCounterThatCannotBeWrittenLeavesTheMessagePending() throws Exception {
    insert("r", 1, 101, MessageStatus.PENDING);
    String tooLong = Counter.REJECT_PREFIX + "x".repeat(200);
    assertThrows(
        IllegalStateException.class,
        () -> reviews.decide(101, MessageStatus.REJECTED, 0, "why", Map.of(tooLong, 1L)));
    MessageRow still =
        reviews.decide(101, MessageStatus.CONFIRMED, 0, null, Map.of()).orElseThrow();
    assertEquals(MessageStatus.CONFIRMED, still.status(), "the failed decision changed nothing");
    assertEquals(1, still.version());
  }

  @Test
  void aRejectionCountsOnceAndAStaleVersionChangesNothing() throws Exception {
    insert("r", 1, 101, MessageStatus.PENDING);
    Map<String, Long> c = Map.of(Counter.REJECT_PREFIX + "operator", 1L);
    reviews.decide(101, MessageStatus.REJECTED, 0, "spam", c);
    assertThrows(
        VersionConflictException.class,
        () -> reviews.decide(101, MessageStatus.REJECTED, 0, "again", c));
    assertEquals(1, counter(Counter.REJECT_PREFIX + "operator"));
    assertEquals(List.of(), feed.after("r", 0, 0, 10), "a rejection gets no cursor");
  }

  @Test
  void approvalsTakeTheNextCursorOfTheRoomAfterEarlierConfirmations() throws Exception {
    insert("r", 1, 101, MessageStatus.CONFIRMED);
    insert("r", 2, 102, MessageStatus.PENDING);
    insert("r", 3, 103, MessageStatus.CONFIRMED);
    insert("other", 1, 201, MessageStatus.CONFIRMED);
    assertEquals(2, feed.head("r"));
    reviews.decide(102, MessageStatus.CONFIRMED, 0, null, Map.of());
    List<ConfirmedFeed.Confirmed> all = feed.after("r", 0, 0, 10);
    assertEquals(List.of(1L, 2L, 3L), all.stream().map(ConfirmedFeed.Confirmed::cursor).toList());
    assertEquals(
        List.of(1L, 3L, 2L), all.stream().map(x -> x.message().seq()).toList(), "seq 2 came last");
    assertEquals(
        List.of(2L), feed.after("r", 2, 0, 10).stream().map(x -> x.message().seq()).toList());
    assertEquals(1, feed.cursorBeforeSeq("r", 2), "the catch-up after seq 2 starts at seq 3");
    assertEquals(1, feed.head("other"));
    assertThrows(
        IllegalArgumentException.class,
        () -> reviews.decide(102, MessageStatus.PENDING, 1, null, Map.of()));
  }
}
