package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Hands out confirmation cursors (docs/sync-server.md, "Room streams"): every message that becomes
 * CONFIRMED, when a batch stores it or when an operator approves it, gets the next number of its
 * room, in the same transaction, recorded as a {@code room_confirmations} row. The room's {@code
 * room_cursors} row stays locked until that transaction ends, so transactions of one room take
 * cursors in commit order: a reader that sees cursor n has every smaller cursor of the room visible
 * too, and a stream resumed after n misses nothing. Taking the cursors is the last thing a
 * transaction does, after its message rows are in: the lock is held for one narrow insert and the
 * commit.
 */
final class ConfirmedCursors {
  private ConfirmedCursors() {}

  /**
   * Assigns cursors to the CONFIRMED rows among {@code rows} (already written in this transaction),
   * rooms in name order (no lock-order deadlocks), rows in the given order within a room.
   *
   * @return the range of cursors each room handed out
   */
  static Map<String, CursorRange> assign(Connection c, List<MessageRow> rows) throws SQLException {
    Long[] cursors = reserve(c, rows);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO room_confirmations (room, confirmed_cursor, seq) VALUES (?, ?, ?)")) {
      boolean any = false;
      for (int i = 0; i < rows.size(); i++) {
        if (cursors[i] != null) {
          ps.setString(1, rows.get(i).room());
          ps.setLong(2, cursors[i]);
          ps.setLong(3, rows.get(i).seq());
          ps.addBatch();
          any = true;
        }
      }
      if (any) {
        ps.executeBatch();
      }
    }
    return ranges(rows, cursors);
  }

  /**
   * Reserves the cursors of the CONFIRMED rows among {@code rows}: one upsert of every room's row,
   * rooms in name order (no lock-order deadlocks), and one read of their new values; cursors follow
   * the given order within a room.
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
    String rowMarks = String.join(",", Collections.nCopies(counts.size(), "(?, ?)"));
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO room_cursors (room, confirmed_cursor) VALUES "
                + rowMarks
                + " ON DUPLICATE KEY UPDATE"
                + " confirmed_cursor = confirmed_cursor + VALUES(confirmed_cursor)")) {
      int i = 1;
      for (Map.Entry<String, Integer> e : counts.entrySet()) {
        ps.setString(i++, e.getKey());
        ps.setLong(i++, e.getValue());
      }
      ps.executeUpdate();
    }
    String marks = String.join(",", Collections.nCopies(counts.size(), "?"));
    Map<String, Long> first = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT room, confirmed_cursor FROM room_cursors WHERE room IN (" + marks + ")")) {
      int i = 1;
      for (String room : counts.keySet()) {
        ps.setString(i++, room);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String room = rs.getString(1);
          Integer n = counts.get(room);
          if (n != null) {
            first.put(room, rs.getLong(2) - n + 1);
          }
        }
      }
    }
    if (first.size() != counts.size()) {
      throw new IllegalStateException(
          "room_cursors: got " + first.size() + " rows, want " + counts.size());
    }
    return first;
  }

  /** The range of each room's cursors in {@code cursors} (as {@link #reserve} gave them). */
  private static Map<String, CursorRange> ranges(List<MessageRow> rows, Long[] cursors) {
    Map<String, CursorRange> out = new TreeMap<>();
    for (int i = 0; i < rows.size(); i++) {
      if (cursors[i] != null) {
        CursorRange one = new CursorRange(cursors[i], cursors[i]);
        out.merge(rows.get(i).room(), one, CursorRange::span);
      }
    }
    return out;
  }
}
