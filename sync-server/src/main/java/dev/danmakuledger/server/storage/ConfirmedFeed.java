package dev.danmakuledger.server.storage;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Reads a room's CONFIRMED messages in confirmation order, by the cursors {@link ConfirmedCursors}
 * assigned (docs/sync-server.md, "Room streams"): what room streams catch up from and fan out.
 */
public final class ConfirmedFeed {
  private final DataSource ds;

  public ConfirmedFeed(Database db) {
    this.ds = db.dataSource();
  }

  /** A CONFIRMED message with its confirmation cursor. */
  public record Confirmed(long cursor, MessageRow message) {}

  /** The last cursor handed out in {@code room} (0 when none). */
  public long head(String room) {
    return Jdbc.read(
        ds,
        "room cursor of " + room,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement("SELECT confirmed_cursor FROM room_cursors WHERE room = ?")) {
            ps.setString(1, room);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? rs.getLong(1) : 0L;
            }
          }
        });
  }

  /**
   * CONFIRMED messages of {@code room} with cursor greater than {@code afterCursor} and seq greater
   * than {@code afterSeq}, in cursor order, at most {@code limit}.
   */
  public List<Confirmed> after(String room, long afterCursor, long afterSeq, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit: got " + limit + ", want >= 1");
    }
    return Jdbc.read(
        ds,
        "confirmed messages of " + room,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT "
                      + MessageRows.COLUMNS
                      + ", confirmed_cursor FROM messages WHERE room = ? AND confirmed_cursor > ?"
                      + " AND seq > ? AND status = 'CONFIRMED' ORDER BY confirmed_cursor LIMIT "
                      + limit)) {
            ps.setString(1, room);
            ps.setLong(2, afterCursor);
            ps.setLong(3, afterSeq);
            try (ResultSet rs = ps.executeQuery()) {
              List<Confirmed> out = new ArrayList<>();
              while (rs.next()) {
                out.add(new Confirmed(rs.getLong(MessageRows.COUNT + 1), MessageRows.read(rs)));
              }
              return out;
            }
          }
        });
  }

  /**
   * The cursor just before the first CONFIRMED message of {@code room} with seq greater than {@code
   * afterSeq}, to start a catch-up that was asked for by seq; the head when there is none.
   */
  public long cursorBeforeSeq(String room, long afterSeq) {
    Long first =
        Jdbc.read(
            ds,
            "cursor after seq in " + room,
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT MIN(confirmed_cursor) FROM messages WHERE room = ? AND seq > ?"
                          + " AND confirmed_cursor IS NOT NULL")) {
                ps.setString(1, room);
                ps.setLong(2, afterSeq);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next() ? Jdbc.getLong(rs, 1) : null;
                }
              }
            });
    return first == null ? head(room) : first - 1;
  }
}
