package dev.danmakuledger.server.storage;

import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Hands out confirmation cursors (docs/sync-server.md, "Room streams"): every message that becomes
 * CONFIRMED, when a batch stores it or when an operator approves it, gets the next number of its
 * room, in the same transaction, recorded in a {@code confirmation_runs} row (one per run of
 * consecutive seqs that took consecutive cursors). The room's {@code room_cursors} row stays locked
 * until that transaction ends, so transactions of one room take cursors in commit order: a reader
 * that sees cursor n has every smaller cursor of the room visible too, and a stream resumed after n
 * misses nothing. Taking the cursors is the last thing a transaction does, after its message rows
 * are in: the lock is held for one narrow insert of about one row per room and the commit.
 */
final class ConfirmedCursors {
  private ConfirmedCursors() {}

  /**
   * Assigns cursors to the CONFIRMED rows among {@code rows} (already written in this transaction),
   * rooms in name order (no lock-order deadlocks), rows in the given order within a room.
   *
   * @return each room's newly CONFIRMED messages with their cursors, in cursor order (contiguous),
   *     rooms in name order: what the commit's broadcast offers without reading SQL back
   */
  static Map<String, List<Confirmed>> assign(Connection c, List<MessageRow> rows)
      throws SQLException {
    Long[] cursors = reserve(c, rows);
    List<Run> runs = runs(rows, cursors);
    if (!runs.isEmpty()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO confirmation_runs (room, last_cursor, first_cursor, first_seq, last_seq)"
                  + " VALUES (?, ?, ?, ?, ?)")) {
        for (Run r : runs) {
          ps.setString(1, r.room());
          ps.setLong(2, r.lastCursor());
          ps.setLong(3, r.firstCursor());
          ps.setLong(4, r.firstSeq());
          ps.setLong(5, r.lastSeq());
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
    return confirmed(rows, cursors);
  }

  /**
   * Consecutive cursors of one room given to consecutive seqs: one {@code confirmation_runs} row.
   */
  record Run(String room, long firstCursor, long lastCursor, long firstSeq) {
    long lastSeq() {
      return firstSeq + (lastCursor - firstCursor);
    }

    /** The seq that cursor {@code cursor} of this run confirmed. */
    long seqOf(long cursor) {
      return firstSeq + (cursor - firstCursor);
    }

    /** The cursor that confirmed seq {@code seq} of this run. */
    long cursorOf(long seq) {
      return firstCursor + (seq - firstSeq);
    }
  }

  /**
   * The runs of {@code cursors} (as {@link #reserve} gave them): a room's run goes on while each
   * next cursor of the room confirms the seq after the previous one.
   */
  static List<Run> runs(List<MessageRow> rows, Long[] cursors) {
    List<Run> done = new ArrayList<>();
    Map<String, Run> open = new TreeMap<>();
    for (int i = 0; i < rows.size(); i++) {
      if (cursors[i] == null) {
        continue;
      }
      MessageRow m = rows.get(i);
      Run run = open.get(m.room());
      if (run != null && m.seq() == run.lastSeq() + 1 && cursors[i] == run.lastCursor() + 1) {
        open.put(m.room(), new Run(m.room(), run.firstCursor(), cursors[i], run.firstSeq()));
      } else {
        if (run != null) {
          done.add(run);
        }
        open.put(m.room(), new Run(m.room(), cursors[i], cursors[i], m.seq()));
      }
    }
    done.addAll(open.values());
    return done;
  }

  /**
   * Reserves the cursors of the CONFIRMED rows among {@code rows}: one upsert of every room's row,
   * rooms in name order (no lock-order deadlocks), that returns their new values on MariaDB and is
   * followed by one read of them elsewhere; cursors follow the given order within a room.
   *
   * @return the cursor of each row by position, null for rows that are not CONFIRMED
   */
  private static Long[] reserve(Connection c, List<MessageRow> rows) throws SQLException {
    Map<String, Integer> counts = new TreeMap<>();
    for (MessageRow m : rows) {
      if (m.status() == MessageStatus.CONFIRMED) {
        counts.merge(m.room(), 1, Integer::sum);
      }
    }
    Long[] cursors = new Long[rows.size()];
    if (counts.isEmpty()) {
      return cursors;
    }
    Map<String, Long> next = take(c, counts);
    for (int i = 0; i < rows.size(); i++) {
      MessageRow m = rows.get(i);
      if (m.status() == MessageStatus.CONFIRMED) {
        long cursor = next.get(m.room());
        cursors[i] = cursor;
        next.put(m.room(), cursor + 1);
      }
    }
    return cursors;
  }

  /**
   * Reserves {@code counts} cursors of each room, locking the rooms' rows until the transaction
   * ends.
   *
   * @return the first reserved cursor of each room
   */
  private static Map<String, Long> take(Connection c, Map<String, Integer> counts)
      throws SQLException {
    String upsert =
        "INSERT INTO room_cursors (room, confirmed_cursor) VALUES "
            + String.join(",", Collections.nCopies(counts.size(), "(?, ?)"))
            + " ON DUPLICATE KEY UPDATE"
            + " confirmed_cursor = confirmed_cursor + VALUES(confirmed_cursor)";
    Map<String, Long> first = new HashMap<>();
    if (c.getMetaData().getDatabaseProductName().equals("MariaDB")) {
      // MariaDB returns the rows as the upsert left them: no read after it
      try (PreparedStatement ps =
          c.prepareStatement(upsert + " RETURNING room, confirmed_cursor")) {
        bindCounts(ps, counts);
        try (ResultSet rs = ps.executeQuery()) {
          readFirst(rs, counts, first);
        }
      }
    } else {
      try (PreparedStatement ps = c.prepareStatement(upsert)) {
        bindCounts(ps, counts);
        ps.executeUpdate();
      }
      String marks = String.join(",", Collections.nCopies(counts.size(), "?"));
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT room, confirmed_cursor FROM room_cursors WHERE room IN (" + marks + ")")) {
        int i = 1;
        for (String room : counts.keySet()) {
          ps.setString(i++, room);
        }
        try (ResultSet rs = ps.executeQuery()) {
          readFirst(rs, counts, first);
        }
      }
    }
    if (first.size() != counts.size()) {
      throw new IllegalStateException(
          "room_cursors: got " + first.size() + " rows, want " + counts.size());
    }
    return first;
  }

  private static void bindCounts(PreparedStatement ps, Map<String, Integer> counts)
      throws SQLException {
    int i = 1;
    for (Map.Entry<String, Integer> e : counts.entrySet()) {
      ps.setString(i++, e.getKey());
      ps.setLong(i++, e.getValue());
    }
  }

  /** The first reserved cursor of each room from rows of (room, cursor after the reservation). */
  private static void readFirst(ResultSet rs, Map<String, Integer> counts, Map<String, Long> first)
      throws SQLException {
    while (rs.next()) {
      String room = rs.getString(1);
      Integer n = counts.get(room);
      if (n != null) {
        first.put(room, rs.getLong(2) - n + 1);
      }
    }
  }

  /** The rows that took a cursor, by room, in cursor order. */
  private static Map<String, List<Confirmed>> confirmed(List<MessageRow> rows, Long[] cursors) {
    Map<String, List<Confirmed>> out = new TreeMap<>();
    for (int i = 0; i < rows.size(); i++) {
      if (cursors[i] != null) {
        MessageRow m = rows.get(i);
        out.computeIfAbsent(m.room(), r -> new ArrayList<>()).add(new Confirmed(cursors[i], m));
      }
    }
    return out;
  }
}
