package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Hands out confirmation cursors (docs/sync-server.md, "Room streams"): every message that becomes
 * CONFIRMED, when a batch stores it or when an operator approves it, gets the next number of its
 * room, in the same transaction. The room's {@code room_cursors} row stays locked until that
 * transaction ends, so transactions of one room take cursors in commit order: a reader that sees
 * cursor n has every smaller cursor of the room visible too, and a stream resumed after n misses
 * nothing.
 */
final class ConfirmedCursors {
  private ConfirmedCursors() {}

  /**
   * Assigns cursors to the CONFIRMED rows among {@code rows} (already written in this transaction),
   * rooms in name order (no lock-order deadlocks), rows in the given order within a room.
   */
  static void assign(Connection c, List<MessageRow> rows) throws SQLException {
    Map<String, List<MessageRow>> byRoom = new TreeMap<>();
    for (MessageRow m : rows) {
      if (m.status() == MessageStatus.CONFIRMED) {
        byRoom.computeIfAbsent(m.room(), r -> new ArrayList<>()).add(m);
      }
    }
    for (Map.Entry<String, List<MessageRow>> e : byRoom.entrySet()) {
      String room = e.getKey();
      List<MessageRow> confirmed = e.getValue();
      long last = take(c, room, confirmed.size());
      long cursor = last - confirmed.size();
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE messages SET confirmed_cursor = ? WHERE room = ? AND seq = ?")) {
        for (MessageRow m : confirmed) {
          ps.setLong(1, ++cursor);
          ps.setString(2, room);
          ps.setLong(3, m.seq());
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
  }

  /** Reserves {@code n} cursors of {@code room}, locking its row; returns the last one. */
  private static long take(Connection c, String room, int n) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO room_cursors (room, confirmed_cursor) VALUES (?, ?)"
                + " ON DUPLICATE KEY UPDATE confirmed_cursor = confirmed_cursor + ?")) {
      ps.setString(1, room);
      ps.setLong(2, n);
      ps.setLong(3, n);
      ps.executeUpdate();
    }
    try (PreparedStatement ps =
        c.prepareStatement("SELECT confirmed_cursor FROM room_cursors WHERE room = ?")) {
      ps.setString(1, room);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("room_cursors: got no row for " + room + ", want one");
        }
        return rs.getLong(1);
      }
    }
  }
}
