package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Confirmation cursors stored as runs (docs/sync-server.md, "Room streams"), on every backend: a
 * batch writes one run per room and stretch of consecutive seqs, and a room read by cursor gives
 * every CONFIRMED message once, in cursor order, in pages of any size.
 */
abstract class ConfirmedFeedContract {
  Database db;
  ConfirmedFeed feed;

  /** Opens a migrated, empty database of the backend under test. */
  abstract Database openDatabase() throws Exception;

  /** Releases what {@link #openDatabase()} created. */
  abstract void dropDatabase() throws Exception;

  @BeforeEach
  void open() throws Exception {
    db = openDatabase();
    feed = new ConfirmedFeed(db);
  }

  @AfterEach
  void close() throws Exception {
    db.close();
    dropDatabase();
  }

  static MessageRow row(String room, long seq, MessageStatus status) {
    long id = room.hashCode() * 1_000_000L + seq;
    return new MessageRow(
        room,
        seq,
        id,
        "d:u:1732950000000:" + room + seq,
        "h",
        "d",
        seq - 1,
        "u",
        "text " + seq,
        null,
        1,
        0,
        25,
        0,
        status,
        null,
        0);
  }

  /**
   * Stores {@code rows} and takes their cursors in one transaction, as a batch does.
   *
   * @return the range of cursors each room handed out
   */
  Map<String, CursorRange> commit(List<MessageRow> rows) throws SQLException {
    Map<String, CursorRange> ranges = new TreeMap<>();
    confirm(rows).forEach((room, messages) -> ranges.put(room, CursorRange.of(messages)));
    return ranges;
  }

  /**
   * As {@link #commit}, returning the confirmed messages with their cursors as the batch has them.
   */
  Map<String, List<ConfirmedFeed.Confirmed>> confirm(List<MessageRow> rows) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      MessageStore.insert(c, rows, 0);
      Map<String, List<ConfirmedFeed.Confirmed>> confirmed = ConfirmedCursors.assign(c, rows);
      c.commit();
      return confirmed;
    }
  }

  /** The closed runs of {@code room}: its runs but the last, which its cursor row keeps open. */
  long closedRuns(String room) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM confirmation_runs WHERE room = ?")) {
      ps.setString(1, room);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  void setStatus(String room, long seq, MessageStatus status) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE messages SET status = ? WHERE room = ? AND seq = ?")) {
      ps.setString(1, status.name());
      ps.setString(2, room);
      ps.setLong(3, seq);
      assertEquals(1, ps.executeUpdate());
    }
  }

  static List<Long> seqs(List<ConfirmedFeed.Confirmed> page) {
    return page.stream().map(x -> x.message().seq()).toList();
  }

  static List<Long> cursors(List<ConfirmedFeed.Confirmed> page) {
    return page.stream().map(ConfirmedFeed.Confirmed::cursor).toList();
  }

  /** Seqs 1..6 of room r, 4 held for review: runs 1..3 and 5..6 (cursors 1..5). */
  void roomWithAHeldMessage() throws SQLException {
    List<MessageRow> rows = new ArrayList<>();
    for (long seq = 1; seq <= 6; seq++) {
      rows.add(row("r", seq, seq == 4 ? MessageStatus.PENDING : MessageStatus.CONFIRMED));
    }
    assertEquals(Map.of("r", new CursorRange(1, 5)), commit(rows));
  }

  void execute(String sql) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.executeUpdate();
    }
  }

  static List<MessageRow> confirmedSeqs(String room, long first, long last) {
    List<MessageRow> rows = new ArrayList<>();
    for (long seq = first; seq <= last; seq++) {
      rows.add(row(room, seq, MessageStatus.CONFIRMED));
    }
    return rows;
  }

  @Test
  void aBatchWritesOneRunPerRoomAndStretchOfConsecutiveSeqs() throws Exception {
    roomWithAHeldMessage();
    assertEquals(Map.of("other", new CursorRange(1, 40)), commit(confirmedSeqs("other", 1, 40)));
    assertEquals(1, closedRuns("r"), "the held seq 4 splits the run: 1..3 closed, 5..6 open");
    assertEquals(0, closedRuns("other"), "one run, open");
    assertEquals(List.of(1L, 2L, 3L, 5L, 6L), seqs(feed.after("r", 0, 0, 10)));
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), cursors(feed.after("r", 0, 0, 10)));
    assertEquals(40, feed.after("other", 0, 0, 100).size());
    assertEquals(5, feed.head("r"));
  }

  @Test
  void theMessagesABatchConfirmedAreWhatAReadOfTheirCursorsGivesBack() throws Exception {
    List<MessageRow> rows = new ArrayList<>();
    for (long seq = 1; seq <= 6; seq++) {
      rows.add(row("a", seq, seq == 4 ? MessageStatus.PENDING : MessageStatus.CONFIRMED));
      rows.add(row("b", seq, MessageStatus.CONFIRMED));
    }
    rows.add(row("c", 1, MessageStatus.PENDING));
    Map<String, List<ConfirmedFeed.Confirmed>> first = confirm(rows);
    assertEquals(List.of("a", "b"), List.copyOf(first.keySet()), "rooms in name order, none held");
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), cursors(first.get("a")));
    assertEquals(feed.after("a", 0, 0, 100), first.get("a"));
    assertEquals(feed.after("b", 0, 0, 100), first.get("b"));

    Map<String, List<ConfirmedFeed.Confirmed>> second =
        confirm(
            List.of(row("b", 8, MessageStatus.CONFIRMED), row("b", 7, MessageStatus.CONFIRMED)));
    assertEquals(List.of(7L, 8L), cursors(second.get("b")), "cursors in the order given");
    assertEquals(List.of(8L, 7L), seqs(second.get("b")));
    assertEquals(feed.after("b", 6, 0, 100), second.get("b"));
  }

  @Test
  void anApprovalTakesTheNextCursorAndEveryPageSizeWalksTheSameOrder() throws Exception {
    roomWithAHeldMessage();
    new ReviewStore(db, Clock.systemUTC())
        .decide(messageId(4), MessageStatus.CONFIRMED, 0, null, Map.of());
    List<ConfirmedFeed.Confirmed> all = feed.after("r", 0, 0, 10);
    assertEquals(List.of(1L, 2L, 3L, 5L, 6L, 4L), seqs(all));
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), cursors(all));
    for (int limit = 1; limit <= 7; limit++) {
      List<Long> walked = new ArrayList<>();
      long cursor = 0;
      List<ConfirmedFeed.Confirmed> page;
      do {
        page = feed.after("r", cursor, 0, limit);
        walked.addAll(seqs(page));
        if (!page.isEmpty()) {
          cursor = page.get(page.size() - 1).cursor();
        }
      } while (page.size() == limit);
      assertEquals(seqs(all), walked, "pages of " + limit);
    }
  }

  long messageId(long seq) {
    return row("r", seq, MessageStatus.CONFIRMED).messageId();
  }

  @Test
  void aReadAfterASeqSkipsEarlierSeqsButKeepsTheirCursorOrder() throws Exception {
    roomWithAHeldMessage();
    new ReviewStore(db, Clock.systemUTC())
        .decide(messageId(4), MessageStatus.CONFIRMED, 0, null, Map.of());
    assertEquals(List.of(5L, 6L, 4L), seqs(feed.after("r", 0, 3, 10)));
    assertEquals(List.of(5L, 6L), seqs(feed.after("r", 0, 4, 10)));
    assertEquals(List.of(6L, 4L), seqs(feed.after("r", 4, 2, 10)));
    assertEquals(3, feed.cursorBeforeSeq("r", 3), "seq 5 has cursor 4");
    assertEquals(1, feed.cursorBeforeSeq("r", 1), "seq 2 has cursor 2");
    assertEquals(0, feed.cursorBeforeSeq("r", 0));
    assertEquals(6, feed.cursorBeforeSeq("r", 6), "nothing after seq 6: the head");
  }

  @Test
  void aMessageNoLongerConfirmedIsSkippedAndThePageStillFills() throws Exception {
    roomWithAHeldMessage();
    setStatus("r", 2, MessageStatus.REJECTED);
    List<ConfirmedFeed.Confirmed> page = feed.after("r", 0, 0, 3);
    assertEquals(List.of(1L, 3L, 5L), seqs(page));
    assertEquals(List.of(1L, 3L, 4L), cursors(page));
  }

  @Test
  void moreRunsThanOneReadTakesAreAllRead() throws Exception {
    List<MessageRow> rows = new ArrayList<>();
    for (long seq = 1; seq <= 1_000; seq++) {
      rows.add(row("r", seq, seq % 2 == 0 ? MessageStatus.PENDING : MessageStatus.CONFIRMED));
    }
    commit(rows);
    assertEquals(499, closedRuns("r"), "every other seq held: runs of one, the last open");
    List<ConfirmedFeed.Confirmed> all = feed.after("r", 0, 0, 500);
    assertEquals(500, all.size());
    for (int i = 0; i < all.size(); i++) {
      assertEquals(i + 1, all.get(i).cursor());
      assertEquals(2L * i + 1, all.get(i).message().seq());
    }
    assertEquals(List.of(999L), seqs(feed.after("r", 499, 0, 500)));
    assertEquals(List.of(), feed.after("r", 500, 0, 500));
  }

  @Test
  void theCursorRangeOfSeqsSpansTheRunsThatHoldThem() throws Exception {
    roomWithAHeldMessage();
    assertEquals(
        Optional.empty(), feed.cursorRange("r", List.of(4L)).map(r -> List.of(r[0], r[1])));
    assertEquals(
        Optional.of(List.of(2L, 5L)),
        feed.cursorRange("r", List.of(2L, 4L, 6L)).map(r -> List.of(r[0], r[1])));
    assertEquals(
        Optional.of(List.of(4L, 4L)),
        feed.cursorRange("r", List.of(5L)).map(r -> List.of(r[0], r[1])));
    assertEquals(
        Optional.empty(), feed.cursorRange("r", List.of(7L)).map(r -> List.of(r[0], r[1])));
  }

  @Test
  void runsFarApartInSeqAreEachReadWhateverLiesBetweenThem() throws Exception {
    // seqs 1..3 and 3004..3006 confirmed, 3,000 held between them; then 1500 approved
    List<MessageRow> rows = new ArrayList<>();
    for (long seq = 1; seq <= 3_006; seq++) {
      boolean held = seq > 3 && seq < 3_004;
      rows.add(row("r", seq, held ? MessageStatus.PENDING : MessageStatus.CONFIRMED));
    }
    commit(rows);
    new ReviewStore(db, Clock.systemUTC())
        .decide(messageId(1_500), MessageStatus.CONFIRMED, 0, null, Map.of());
    List<ConfirmedFeed.Confirmed> all = feed.after("r", 0, 0, 100);
    assertEquals(List.of(1L, 2L, 3L, 3_004L, 3_005L, 3_006L, 1_500L), seqs(all));
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), cursors(all));
    assertEquals(List.of(3_006L, 1_500L), seqs(feed.after("r", 5, 0, 100)));
    assertEquals(List.of(3_004L, 3_005L, 3_006L, 1_500L), seqs(feed.after("r", 0, 1_499, 100)));
    assertEquals(List.of(), seqs(feed.after("r", 0, 3_006, 100)));
  }

  @Test
  void aRunThatContinuesTheOpenRunWritesNoRunRow() throws Exception {
    assertEquals(Map.of("r", new CursorRange(1, 5)), commit(confirmedSeqs("r", 1, 5)));
    assertEquals(Map.of("r", new CursorRange(6, 8)), commit(confirmedSeqs("r", 6, 8)));
    assertEquals(Map.of("r", new CursorRange(9, 9)), commit(confirmedSeqs("r", 9, 9)));
    assertEquals(0, closedRuns("r"), "seqs 1..9 are one open run");
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), cursors(feed.after("r", 0, 0, 20)));
    assertEquals(List.of(8L, 9L), seqs(feed.after("r", 7, 0, 20)));

    // seq 10 is not there yet: 11 starts a run of its own and closes 1..9
    assertEquals(Map.of("r", new CursorRange(10, 10)), commit(confirmedSeqs("r", 11, 11)));
    assertEquals(1, closedRuns("r"));
    assertEquals(Map.of("r", new CursorRange(11, 12)), commit(confirmedSeqs("r", 12, 13)));
    assertEquals(1, closedRuns("r"), "12..13 continue 11");
    List<ConfirmedFeed.Confirmed> all = feed.after("r", 0, 0, 20);
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 11L, 12L, 13L), seqs(all));
    assertEquals(12, all.get(all.size() - 1).cursor());
    assertEquals(9, feed.cursorBeforeSeq("r", 10), "seq 11 has cursor 10");
    assertEquals(
        Optional.of(List.of(9L, 11L)),
        feed.cursorRange("r", List.of(9L, 12L)).map(r -> List.of(r[0], r[1])));
    assertEquals(12, feed.head("r"));
  }

  @Test
  void aCommitOfSeveralRunsInARoomClosesAllButItsLast() throws Exception {
    commit(confirmedSeqs("r", 1, 3));
    // seq 4 does not follow 3 in cursor order: 5, 4, then 6..7
    List<MessageRow> rows = new ArrayList<>();
    rows.add(row("r", 5, MessageStatus.CONFIRMED));
    rows.add(row("r", 4, MessageStatus.CONFIRMED));
    rows.addAll(confirmedSeqs("r", 5, 7).subList(1, 3));
    assertEquals(Map.of("r", new CursorRange(4, 7)), commit(rows));
    assertEquals(3, closedRuns("r"), "1..3 and the first two runs of the commit; 4..7 open");
    assertEquals(List.of(1L, 2L, 3L, 5L, 4L, 6L, 7L), seqs(feed.after("r", 0, 0, 20)));
    commit(confirmedSeqs("r", 8, 8));
    assertEquals(3, closedRuns("r"), "8 continues the open run 4..7 (seqs 6..7)");
    assertEquals(List.of(7L, 8L), seqs(feed.after("r", 6, 0, 20)));
    assertEquals(List.of(4L, 5L, 6L, 7L, 8L), cursors(feed.after("r", 3, 0, 20)));
  }

  @Test
  void aRoomWhoseRunsAreAllClosedStartsAnOpenRunWithoutClosingAnything() throws Exception {
    // how rooms stored before open runs look: every run in confirmation_runs, none open
    commit(confirmedSeqs("r", 1, 3));
    execute(
        "INSERT INTO confirmation_runs (room, last_cursor, first_cursor, first_seq, last_seq)"
            + " VALUES ('r', 3, 1, 1, 3)");
    execute("UPDATE room_cursors SET run_cursor = NULL, run_offset = NULL WHERE room = 'r'");
    assertEquals(List.of(1L, 2L, 3L), seqs(feed.after("r", 0, 0, 20)));
    assertEquals(Map.of("r", new CursorRange(4, 5)), commit(confirmedSeqs("r", 4, 5)));
    assertEquals(1, closedRuns("r"));
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), seqs(feed.after("r", 0, 0, 20)));
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), cursors(feed.after("r", 0, 0, 20)));
    assertEquals(3, feed.cursorBeforeSeq("r", 3));
  }
}
