package dev.danmakuledger.server.storage;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
                      + MessageRows.columns("m")
                      + ", rc.confirmed_cursor FROM room_confirmations rc JOIN messages m"
                      + " ON m.room = rc.room AND m.seq = rc.seq"
                      + " WHERE rc.room = ? AND rc.confirmed_cursor > ? AND rc.seq > ?"
                      + " AND m.status = 'CONFIRMED' ORDER BY rc.confirmed_cursor LIMIT "
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
                      "SELECT MIN(confirmed_cursor) FROM room_confirmations"
                          + " WHERE room = ? AND seq > ?")) {
                ps.setString(1, room);
                ps.setLong(2, afterSeq);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next() ? Jdbc.getLong(rs, 1) : null;
                }
              }
            });
    return first == null ? head(room) : first - 1;
  }

  /**
   * The lowest and highest confirmation cursor among the given seqs of {@code room} (read after the
   * commit that assigned them, to announce them to other instances), empty when none has one.
   */
  public Optional<long[]> cursorRange(String room, List<Long> seqs) {
    if (seqs.isEmpty() || seqs.size() > 10_000) {
      throw new IllegalArgumentException("seqs: got " + seqs.size() + ", want 1..10000");
    }
    StringBuilder in = new StringBuilder("?");
    for (int i = 1; i < seqs.size(); i++) {
      in.append(",?");
    }
    return Jdbc.read(
        ds,
        "cursors of new confirmations in " + room,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT MIN(confirmed_cursor), MAX(confirmed_cursor) FROM room_confirmations"
                      + " WHERE room = ? AND seq IN ("
                      + in
                      + ")")) {
            ps.setString(1, room);
            for (int i = 0; i < seqs.size(); i++) {
              ps.setLong(i + 2, seqs.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
              Long lo = rs.next() ? Jdbc.getLong(rs, 1) : null;
              Long hi = lo == null ? null : Jdbc.getLong(rs, 2);
              return lo == null || hi == null
                  ? Optional.<long[]>empty()
                  : Optional.of(new long[] {lo, hi});
            }
          }
        });
  }
}
