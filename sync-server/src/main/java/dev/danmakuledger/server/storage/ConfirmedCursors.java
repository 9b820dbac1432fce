package dev.danmakuledger.server.storage;

import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Hands out confirmation cursors (docs/sync-server.md, "Room streams"): every message that becomes
 * CONFIRMED, when a batch stores it or when an operator approves it, gets the next number of its
 * room, in the same transaction. A room's cursors are recorded as runs (consecutive seqs that took
 * consecutive cursors): its last run is open in its {@code room_cursors} row, the others are closed
 * in {@code confirmation_runs}. A transaction whose first run of the room continues the open run
 * only moves the row's last cursor; otherwise it closes the open run into {@code
 * confirmation_runs}. Either way the room's {@code room_cursors} row stays locked until that
 * transaction ends, so transactions of one room take cursors in commit order: a reader that sees
 * cursor n has every smaller cursor of the room visible too, and a stream resumed after n misses
 * nothing. Taking the cursors is the last thing a transaction does, after its message rows are in:
 * the lock is held for one narrow upsert of one row per room and the commit.
 */
final class ConfirmedCursors {
  private ConfirmedCursors() {}

  static final String INSERT_RUNS =
      "INSERT INTO confirmation_runs (room, last_cursor, first_cursor, first_seq, last_seq)"
          + " VALUES (?, ?, ?, ?, ?)";

  /**
   * Whether a room's reservation continues its open run: the transaction confirms one run of the
   * room (its last run starts at its first cursor, {@code 1 = VALUES(run_cursor)}), whose first seq
   * is the seq after the open run's last. The assignments below reference only columns they have
   * not changed yet, or changed so that this reads the same: MySQL and MariaDB see a column's new
   * value in later assignments, H2 its old one. H2 parses {@code VALUES(c)} only where no operator
   * follows.
   */
  private static final String CONTINUES =
      "1 = VALUES(run_cursor) AND run_offset + confirmed_cursor = VALUES(run_offset)";

  /**
   * Reserves cursors for rooms: a row's values are the count, the cursor its last run starts at and
   * that run's seq minus cursor, all as if the room had no cursor yet; an existing row shifts them
   * by its last cursor. The run the update closes is left in {@code closed_*} for the transaction
   * to copy.
   */
  private static final String RESERVE_UPDATE =
      " ON DUPLICATE KEY UPDATE"
          + (" closed_cursor = CASE WHEN " + CONTINUES + " THEN NULL ELSE run_cursor END,")
          + (" closed_offset = CASE WHEN " + CONTINUES + " THEN NULL ELSE run_offset END,")
          + (" run_cursor = CASE WHEN " + CONTINUES + " THEN run_cursor")
          + " ELSE confirmed_cursor + VALUES(run_cursor) END,"
          + (" run_offset = CASE WHEN " + CONTINUES + " THEN run_offset")
          + " ELSE 0 - confirmed_cursor + VALUES(run_offset) END,"
          + " confirmed_cursor = confirmed_cursor + VALUES(confirmed_cursor)";

  private static final String RESERVED = "room, confirmed_cursor, closed_cursor, closed_offset";

  /**
   * Assigns cursors to the CONFIRMED rows among {@code rows} (already written in this transaction),
   * rooms in name order (no lock-order deadlocks), rows in the given order within a room.
   *
   * @return each room's newly CONFIRMED messages with their cursors, in cursor order (contiguous),
   *     rooms in name order: what the commit's broadcast offers without reading SQL back
   */
  static Map<String, List<Confirmed>> assign(Connection c, List<MessageRow> rows)
      throws SQLException {
    Map<String, List<MessageRow>> byRoom = new HashMap<>();
    for (MessageRow m : rows) {
      if (m.status() == MessageStatus.CONFIRMED) {
        byRoom.computeIfAbsent(m.room(), r -> new ArrayList<>()).add(m);
      }
    }
    if (byRoom.isEmpty()) {
      return Map.of();
    }
    String[] rooms = byRoom.keySet().toArray(new String[0]);
    Arrays.sort(rooms);
    Map<String, List<Run>> planned = new HashMap<>(rooms.length * 2);
    for (String room : rooms) {
      planned.put(room, runs(room, byRoom.get(room), 1));
    }
    Map<String, Reserved> reserved = reserve(c, rooms, planned);
    List<Run> closing = new ArrayList<>();
    Map<String, List<Confirmed>> out = new LinkedHashMap<>(rooms.length * 2);
    for (int i = 0; i < rooms.length; i++) {
      Reserved r = reserved.get(rooms[i]);
      r.closed().ifPresent(closing::add);
      List<Run> runs = planned.get(rooms[i]);
      for (Run run : runs.subList(0, runs.size() - 1)) {
        closing.add(run.shift(r.first() - 1));
      }
      List<MessageRow> confirmed = byRoom.get(rooms[i]);
      List<Confirmed> withCursors = new ArrayList<>(confirmed.size());
      for (MessageRow m : confirmed) {
        withCursors.add(new Confirmed(r.first() + withCursors.size(), m));
      }
      out.put(rooms[i], withCursors);
    }
    if (!closing.isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement(INSERT_RUNS)) {
        for (Run r : closing) {
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
    return out;
  }

  /**
   * Consecutive cursors of one room given to consecutive seqs: a {@code confirmation_runs} row, or
   * the room's open run.
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

    /** Seq minus cursor, the same for every cursor of the run. */
    long offset() {
      return firstSeq - firstCursor;
    }

    /** This run with every cursor {@code by} higher. */
    Run shift(long by) {
      return new Run(room, firstCursor + by, lastCursor + by, firstSeq);
    }
  }

  /**
   * The runs of {@code rows} (one room's, in cursor order) when the first takes cursor {@code
   * first}: a run goes on while each next row's seq follows the previous one's.
   */
  static List<Run> runs(String room, List<MessageRow> rows, long first) {
    List<Run> out = new ArrayList<>();
    int start = 0;
    for (int i = 1; i <= rows.size(); i++) {
      if (i == rows.size() || rows.get(i).seq() != rows.get(i - 1).seq() + 1) {
        out.add(new Run(room, first + start, first + i - 1, rows.get(start).seq()));
        start = i;
      }
    }
    return out;
  }

  /** What a room's reservation gave: its first cursor and the open run it closed, if any. */
  private record Reserved(long first, Optional<Run> closed) {}

  /**
   * Reserves the cursors of {@code planned} (each room's runs as if its first cursor were 1) in one
   * upsert of every room's row, {@code rooms} in name order (no lock-order deadlocks), that returns
   * the rows as it left them on MariaDB and is followed by one read of them elsewhere; the rows
   * stay locked until the transaction ends.
   */
  private static Map<String, Reserved> reserve(
      Connection c, String[] rooms, Map<String, List<Run>> planned) throws SQLException {
    String upsert =
        "INSERT INTO room_cursors (room, confirmed_cursor, run_cursor, run_offset) VALUES "
            + String.join(",", Collections.nCopies(rooms.length, "(?, ?, ?, ?)"))
            + RESERVE_UPDATE;
    Map<String, Reserved> reserved = new HashMap<>(rooms.length * 2);
    if (c.getMetaData().getDatabaseProductName().equals("MariaDB")) {
      // MariaDB returns the rows as the upsert left them: no read after it
      try (PreparedStatement ps = c.prepareStatement(upsert + " RETURNING " + RESERVED)) {
        bindPlanned(ps, rooms, planned);
        try (ResultSet rs = ps.executeQuery()) {
          readReserved(rs, planned, reserved);
        }
      }
    } else {
      try (PreparedStatement ps = c.prepareStatement(upsert)) {
        bindPlanned(ps, rooms, planned);
        ps.executeUpdate();
      }
      String marks = String.join(",", Collections.nCopies(rooms.length, "?"));
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT " + RESERVED + " FROM room_cursors WHERE room IN (" + marks + ")")) {
        for (int i = 0; i < rooms.length; i++) {
          ps.setString(i + 1, rooms[i]);
        }
        try (ResultSet rs = ps.executeQuery()) {
          readReserved(rs, planned, reserved);
        }
      }
    }
    if (reserved.size() != rooms.length) {
      throw new IllegalStateException(
          "room_cursors: got " + reserved.size() + " rows, want " + rooms.length);
    }
    return reserved;
  }

  /** Binds each room's row of the upsert, {@code rooms} in name order. */
  private static void bindPlanned(
      PreparedStatement ps, String[] rooms, Map<String, List<Run>> planned) throws SQLException {
    int i = 1;
    for (String room : rooms) {
      List<Run> runs = planned.get(room);
      Run last = runs.get(runs.size() - 1);
      ps.setString(i++, room);
      ps.setLong(i++, last.lastCursor());
      ps.setLong(i++, last.firstCursor());
      ps.setLong(i++, last.offset());
    }
  }

  /** Each room's reservation from its row as the upsert left it. */
  private static void readReserved(
      ResultSet rs, Map<String, List<Run>> planned, Map<String, Reserved> into)
      throws SQLException {
    while (rs.next()) {
      String room = rs.getString(1);
      List<Run> runs = planned.get(room);
      if (runs == null) {
        continue;
      }
      long first = rs.getLong(2) - runs.get(runs.size() - 1).lastCursor() + 1;
      Long closedCursor = Jdbc.getLong(rs, 3);
      Optional<Run> closed =
          closedCursor == null
              ? Optional.empty()
              : Optional.of(new Run(room, closedCursor, first - 1, closedCursor + rs.getLong(4)));
      into.put(room, new Reserved(first, closed));
    }
  }
}
