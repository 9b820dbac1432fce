package dev.danmakuledger.server.storage;

import dev.danmakuledger.server.storage.ConfirmedCursors.Run;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Reads a room's CONFIRMED messages in confirmation order, by the cursors {@link ConfirmedCursors}
 * assigned (docs/sync-server.md, "Room streams"): what room streams catch up from and fan out. A
 * read takes the runs of cursors after the one asked for (the room's open run from its cursor row,
 * the closed ones from {@code confirmation_runs}), then the messages of their seqs, with one range
 * of the primary key per run.
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

  /** The last cursor handed out in every room that has one, by room. */
  public Map<String, Long> heads() {
    return Jdbc.read(
        ds,
        "room cursors",
        c -> {
          Map<String, Long> out = new HashMap<>();
          try (PreparedStatement ps =
                  c.prepareStatement("SELECT room, confirmed_cursor FROM room_cursors");
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.put(rs.getString(1), rs.getLong(2));
            }
          }
          return out;
        });
  }

  /**
   * The last cursor handed out in each of {@code rooms} (a room without one is left out), in one
   * query: the SQL poll of room streams reads many rooms' heads at once.
   */
  public Map<String, Long> heads(List<String> rooms) {
    if (rooms.isEmpty()) {
      return Map.of();
    }
    StringBuilder sql =
        new StringBuilder("SELECT room, confirmed_cursor FROM room_cursors WHERE room IN (");
    for (int i = 0; i < rooms.size(); i++) {
      sql.append(i == 0 ? "?" : ",?");
    }
    sql.append(')');
    return Jdbc.read(
        ds,
        "room cursors of " + rooms.size() + " rooms",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < rooms.size(); i++) {
              ps.setString(i + 1, rooms.get(i));
            }
            Map<String, Long> heads = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                heads.put(rs.getString(1), rs.getLong(2));
              }
            }
            return heads;
          }
        });
  }

  /**
   * CONFIRMED messages of {@code room} with cursor greater than {@code afterCursor} and seq greater
   * than {@code afterSeq}, in cursor order, at most {@code limit}: fewer only when no more are
   * committed.
   */
  public List<Confirmed> after(String room, long afterCursor, long afterSeq, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit: got " + limit + ", want >= 1");
    }
    return Jdbc.read(
        ds,
        "confirmed messages of " + room,
        c -> {
          List<Confirmed> out = new ArrayList<>();
          long cursor = afterCursor;
          while (out.size() < limit) {
            List<Run> runs = runsAfter(c, room, cursor);
            if (runs.isEmpty()) {
              break;
            }
            Plan plan = Plan.of(runs, cursor, afterSeq, limit - out.size());
            Map<Long, MessageRow> bySeq = confirmedIn(c, room, plan.spans());
            for (Span span : plan.spans()) {
              for (long seq = span.firstSeq(); seq <= span.lastSeq() && out.size() < limit; seq++) {
                MessageRow m = bySeq.get(seq);
                if (m != null) {
                  out.add(new Confirmed(span.run().cursorOf(seq), m));
                }
              }
            }
            if (plan.allRuns() && runs.size() < RUNS_PER_READ) {
              break;
            }
            cursor = plan.through();
          }
          return out;
        });
  }

  /** Seqs {@code firstSeq..lastSeq} of {@code run}, to be read. */
  private record Span(Run run, long firstSeq, long lastSeq) {}

  /**
   * The spans of one read: the part of each run after the cursor and after the seq asked for, runs
   * in cursor order, until they hold enough seqs for what is still wanted (some may not be
   * CONFIRMED any more). {@code through} is the last cursor of the last run taken into account.
   */
  private record Plan(List<Span> spans, long through, boolean allRuns) {
    static Plan of(List<Run> runs, long afterCursor, long afterSeq, int wanted) {
      List<Span> spans = new ArrayList<>();
      long seqs = 0;
      for (int i = 0; i < runs.size(); i++) {
        Run r = runs.get(i);
        long first = Math.max(r.seqOf(Math.max(r.firstCursor(), afterCursor + 1)), afterSeq + 1);
        if (first <= r.lastSeq()) {
          spans.add(new Span(r, first, r.lastSeq()));
          seqs += r.lastSeq() - first + 1;
        }
        if (seqs >= wanted) {
          return new Plan(spans, r.lastCursor(), i == runs.size() - 1);
        }
      }
      return new Plan(spans, runs.get(runs.size() - 1).lastCursor(), true);
    }
  }

  /** Most runs one read takes, and most seq ranges one message query asks for. */
  private static final int RUNS_PER_READ = 128;

  /** A room's open run as a row of {@code confirmation_runs}: first cursor, last, first seq. */
  private static final String OPEN_RUN =
      "SELECT run_cursor, confirmed_cursor, run_cursor + run_offset FROM room_cursors"
          + " WHERE room = ? AND run_cursor IS NOT NULL";

  /**
   * The closed runs of a room after a cursor, at most {@link #RUNS_PER_READ}, and its open run if
   * it ends after that cursor (marked 1), in one statement: one snapshot, so a run is read either
   * open or closed, never both or neither.
   */
  private static final String RUNS_AFTER =
      "(SELECT first_cursor, last_cursor, first_seq, 0 AS open_run FROM confirmation_runs"
          + " WHERE room = ? AND last_cursor > ? ORDER BY last_cursor LIMIT "
          + RUNS_PER_READ
          + ") UNION ALL (SELECT run_cursor, confirmed_cursor, run_cursor + run_offset, 1"
          + " FROM room_cursors WHERE room = ? AND run_cursor IS NOT NULL AND confirmed_cursor > ?)";

  /**
   * The first cursor of a room that confirmed a seq after a given one: the lowest over its closed
   * runs, and in its open run, in one statement.
   */
  private static final String FIRST_CURSOR_AFTER_SEQ =
      "SELECT MIN(first_cursor + CASE WHEN first_seq > ? THEN 0 ELSE ? + 1 - first_seq END)"
          + " FROM confirmation_runs WHERE room = ? AND last_seq > ?"
          + " UNION ALL SELECT run_cursor + CASE WHEN run_cursor + run_offset > ? THEN 0"
          + " ELSE ? + 1 - run_cursor - run_offset END FROM room_cursors"
          + " WHERE room = ? AND run_cursor IS NOT NULL AND confirmed_cursor + run_offset > ?";

  /** The closed runs of a room over a range of seqs, and its open run, in one statement. */
  private static final String RUNS_OVER_SEQS =
      "SELECT first_cursor, last_cursor, first_seq FROM confirmation_runs"
          + " WHERE room = ? AND last_seq >= ? AND first_seq <= ? UNION ALL "
          + OPEN_RUN;

  /** The runs of {@code room} with cursors after {@code cursor}, in cursor order. */
  private static List<Run> runsAfter(Connection c, String room, long cursor) throws SQLException {
    List<Run> runs = new ArrayList<>();
    Run open = null;
    try (PreparedStatement ps = c.prepareStatement(RUNS_AFTER)) {
      ps.setString(1, room);
      ps.setLong(2, cursor);
      ps.setString(3, room);
      ps.setLong(4, cursor);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Run r = new Run(room, rs.getLong(1), rs.getLong(2), rs.getLong(3));
          if (rs.getInt(4) == 1) {
            open = r;
          } else {
            runs.add(r);
          }
        }
      }
    }
    runs.sort(Comparator.comparingLong(Run::lastCursor));
    // the open run follows the closed ones, unless more closed runs than one read takes are left
    if (open != null && runs.size() < RUNS_PER_READ) {
      runs.add(open);
    }
    return runs;
  }

  private static List<Run> runs(PreparedStatement ps, String room) throws SQLException {
    List<Run> runs = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        runs.add(new Run(room, rs.getLong(1), rs.getLong(2), rs.getLong(3)));
      }
    }
    return runs;
  }

  /**
   * Most seqs between two spans that one range query reads through rather than splitting: the rows
   * in such a gap are read and dropped.
   */
  private static final long MAX_GAP = 1_024;

  /**
   * The CONFIRMED messages of {@code room} in {@code spans}, by seq (and possibly some in the small
   * gaps between them, which callers never look up). Spans close in seq are read as one {@code seq
   * BETWEEN} range, one query a range: a disjunction of ranges makes H2 scan the whole room instead
   * of the index range, so a read would grow with the room.
   */
  private static Map<Long, MessageRow> confirmedIn(Connection c, String room, List<Span> spans)
      throws SQLException {
    Map<Long, MessageRow> bySeq = new HashMap<>();
    if (spans.isEmpty()) {
      return bySeq;
    }
    List<Span> bySeqOrder = new ArrayList<>(spans);
    bySeqOrder.sort(Comparator.comparingLong(Span::firstSeq));
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + MessageRows.COLUMNS
                + " FROM messages WHERE room = ? AND status = 'CONFIRMED' AND seq BETWEEN ? AND ?")) {
      ps.setString(1, room);
      long first = bySeqOrder.get(0).firstSeq();
      long last = bySeqOrder.get(0).lastSeq();
      for (Span span : bySeqOrder.subList(1, bySeqOrder.size())) {
        if (span.firstSeq() - last > MAX_GAP) {
          readRange(ps, first, last, bySeq);
          first = span.firstSeq();
        }
        last = Math.max(last, span.lastSeq());
      }
      readRange(ps, first, last, bySeq);
    }
    return bySeq;
  }

  private static void readRange(
      PreparedStatement ps, long firstSeq, long lastSeq, Map<Long, MessageRow> into)
      throws SQLException {
    ps.setLong(2, firstSeq);
    ps.setLong(3, lastSeq);
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        MessageRow m = MessageRows.read(rs);
        into.put(m.seq(), m);
      }
    }
  }

  /**
   * The cursor just before the first CONFIRMED message of {@code room} with seq greater than {@code
   * afterSeq}, to start a catch-up that was asked for by seq; the head when there is none. A stream
   * from the start ({@code afterSeq} 0) starts before cursor 1, the first of every room, without a
   * read: opening it costs the request thread no SQL.
   */
  public long cursorBeforeSeq(String room, long afterSeq) {
    if (afterSeq <= 0) {
      return 0;
    }
    Long first =
        Jdbc.read(
            ds,
            "cursor after seq in " + room,
            c -> {
              try (PreparedStatement ps = c.prepareStatement(FIRST_CURSOR_AFTER_SEQ)) {
                for (int i = 0; i < 8; i += 4) {
                  ps.setLong(i + 1, afterSeq);
                  ps.setLong(i + 2, afterSeq);
                  ps.setString(i + 3, room);
                  ps.setLong(i + 4, afterSeq);
                }
                Long min = null;
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    Long cursor = Jdbc.getLong(rs, 1);
                    if (cursor != null && (min == null || cursor < min)) {
                      min = cursor;
                    }
                  }
                }
                return min;
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
    long lowSeq = Collections.min(seqs);
    long highSeq = Collections.max(seqs);
    List<Run> runs =
        Jdbc.read(
            ds,
            "cursors of new confirmations in " + room,
            c -> {
              try (PreparedStatement ps = c.prepareStatement(RUNS_OVER_SEQS)) {
                ps.setString(1, room);
                ps.setLong(2, lowSeq);
                ps.setLong(3, highSeq);
                ps.setString(4, room);
                return runs(ps, room);
              }
            });
    TreeMap<Long, Run> byFirstSeq = new TreeMap<>();
    for (Run r : runs) {
      byFirstSeq.put(r.firstSeq(), r);
    }
    long low = Long.MAX_VALUE;
    long high = Long.MIN_VALUE;
    for (long seq : seqs) {
      Map.Entry<Long, Run> e = byFirstSeq.floorEntry(seq);
      if (e != null && seq <= e.getValue().lastSeq()) {
        long cursor = e.getValue().cursorOf(seq);
        low = Math.min(low, cursor);
        high = Math.max(high, cursor);
      }
    }
    return low == Long.MAX_VALUE ? Optional.empty() : Optional.of(new long[] {low, high});
  }
}
