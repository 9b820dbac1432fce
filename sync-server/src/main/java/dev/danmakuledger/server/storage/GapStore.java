package dev.danmakuledger.server.storage;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Finds and seals holes in room numbering (docs/architecture.md §5, gap sealer): a hole is a number
 * below a room's high-water mark that is neither a message nor a tombstone. Its age is the time
 * since the first slot above it was stored ({@code created_at} of that slot); a hole older than the
 * configured age is sealed as a TOMBSTONE. Sealing inserts with IGNORE under the primary key (room,
 * seq), so a batch committing the number first keeps it, a batch committing it later collides and
 * takes a fresh number, and several sealers at once write each tombstone once. A per-room watermark
 * ({@code room_watermarks}) records up to where a room is known complete, so a run scans only new
 * slots.
 */
public final class GapStore {
  /** Reason stored on tombstones written by the sealer. */
  public static final String SEALED_REASON = "gap-sealed";

  /** Most slots of one room scanned per run. */
  static final int SCAN_LIMIT = 10_000;

  /** Most tombstones written per room per run; a larger hole is sealed over several runs. */
  static final int MAX_TOMBSTONES = 10_000;

  /** A room whose slots above its watermark need a look. */
  public record RoomMark(String room, long highWater, long sealedThrough) {}

  private record Slot(long seq, long createdAt) {}

  private final Jdbc jdbc;
  private final MessageStore messages;

  GapStore(Jdbc jdbc, MessageStore messages) {
    this.jdbc = jdbc;
    this.messages = messages;
  }

  /**
   * Rooms with slots above their watermark, in name order. Two index-only queries joined here, so
   * that the per-room maximum stays a loose scan of the primary key on MySQL/MariaDB.
   */
  public List<RoomMark> roomsAboveWatermark() {
    Map<String, Long> sealed = new HashMap<>();
    for (Map.Entry<String, Long> e :
        jdbc.query(
            "SELECT room, sealed_through FROM room_watermarks",
            ps -> {},
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
      sealed.put(e.getKey(), e.getValue());
    }
    List<RoomMark> marks = new ArrayList<>();
    for (Map.Entry<String, Long> e :
        jdbc.query(
            "SELECT room, MAX(seq) FROM messages GROUP BY room ORDER BY room",
            ps -> {},
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
      long through = sealed.getOrDefault(e.getKey(), 0L);
      if (e.getValue() > through) {
        marks.add(new RoomMark(e.getKey(), e.getValue(), through));
      }
    }
    return marks;
  }

  /** Rooms in one {@code IN} list of {@link #roomsAboveWatermark(Collection)}. */
  private static final int ROOMS_PER_QUERY = 500;

  /**
   * Those of {@code rooms} with slots above their watermark, in name order: the rooms a sealer run
   * looks at when it knows which rooms had numbers handed out, without a scan of every room.
   */
  public List<RoomMark> roomsAboveWatermark(Collection<String> rooms) {
    List<String> all = new ArrayList<>(new TreeSet<>(rooms));
    List<RoomMark> marks = new ArrayList<>();
    for (int from = 0; from < all.size(); from += ROOMS_PER_QUERY) {
      List<String> part = all.subList(from, Math.min(all.size(), from + ROOMS_PER_QUERY));
      String in = " IN (" + String.join(",", Collections.nCopies(part.size(), "?")) + ")";
      Map<String, Long> sealed = new HashMap<>();
      for (Map.Entry<String, Long> e :
          jdbc.query(
              "SELECT room, sealed_through FROM room_watermarks WHERE room" + in,
              ps -> bindRooms(ps, part),
              rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
        sealed.put(e.getKey(), e.getValue());
      }
      Map<String, Long> high = messages.highWaters(part);
      for (String room : part) {
        long through = sealed.getOrDefault(room, 0L);
        if (high.get(room) > through) {
          marks.add(new RoomMark(room, high.get(room), through));
        }
      }
    }
    return marks;
  }

  private static void bindRooms(PreparedStatement ps, List<String> rooms) throws SQLException {
    for (int i = 0; i < rooms.size(); i++) {
      ps.setString(i + 1, rooms.get(i));
    }
  }

  /** Most rooms whose writes one transaction of {@link #seal} carries. */
  static final int ROOMS_PER_TRANSACTION = 500;

  /** What a scan of one room decided: the tombstones to write and how far it is complete. */
  private record Sealing(RoomMark mark, List<MessageRow> tombstones, long through) {
    boolean writes() {
      return !tombstones.isEmpty() || through > mark.sealedThrough();
    }
  }

  /** Rooms whose slots one query of {@link #seal} reads. */
  static final int ROOMS_PER_SCAN = 200;

  /**
   * Seals the holes of these rooms that are older than {@code minAgeMillis} at {@code now} and
   * raises each room's watermark over every number now accounted for. The slots of up to {@value
   * #ROOMS_PER_SCAN} rooms are read in one query; the writes of up to {@value
   * #ROOMS_PER_TRANSACTION} rooms (and {@value #MAX_TOMBSTONES} tombstones) go in one transaction,
   * rooms in the given order, so that a run over many rooms costs a few queries and commits, not
   * one of each a room.
   *
   * @return how many tombstones this call inserted
   */
  public int seal(List<RoomMark> marks, long now, long minAgeMillis) {
    List<Sealing> pending = new ArrayList<>();
    int tombstones = 0;
    int inserted = 0;
    for (int from = 0; from < marks.size(); from += ROOMS_PER_SCAN) {
      List<RoomMark> part = marks.subList(from, Math.min(marks.size(), from + ROOMS_PER_SCAN));
      Map<String, List<Slot>> slots = scan(part);
      for (RoomMark mark : part) {
        List<Slot> above = slots.get(mark.room());
        Sealing s = decide(mark, above == null ? scanBeyond(mark) : above, now, minAgeMillis);
        if (!s.writes()) {
          continue;
        }
        if (pending.size() >= ROOMS_PER_TRANSACTION
            || (!pending.isEmpty() && tombstones + s.tombstones().size() > MAX_TOMBSTONES)) {
          inserted += write(pending, now);
          pending.clear();
          tombstones = 0;
        }
        pending.add(s);
        tombstones += s.tombstones().size();
      }
    }
    if (!pending.isEmpty()) {
      inserted += write(pending, now);
    }
    return inserted;
  }

  /**
   * The slots of each of {@code marks} numbered above its watermark, at most {@value #SCAN_LIMIT}
   * numbers past it and none past its high-water mark, in seq order; a room without a slot there is
   * left out. One statement, a primary-key range of each room joined by {@code UNION ALL}: both
   * MariaDB and H2 read each part from the index.
   */
  private Map<String, List<Slot>> scan(List<RoomMark> marks) {
    String part =
        "SELECT room, seq, created_at FROM messages WHERE room = ? AND seq > ? AND seq <= ?";
    Map<String, List<Slot>> out = new HashMap<>();
    for (Map.Entry<String, Slot> e :
        jdbc.query(
            String.join(" UNION ALL ", Collections.nCopies(marks.size(), part)),
            ps -> {
              int i = 1;
              for (RoomMark m : marks) {
                ps.setString(i++, m.room());
                ps.setLong(i++, m.sealedThrough());
                ps.setLong(i++, Math.min(m.highWater(), m.sealedThrough() + SCAN_LIMIT));
              }
            },
            rs -> Map.entry(rs.getString(1), new Slot(rs.getLong(2), rs.getLong(3))))) {
      out.computeIfAbsent(e.getKey(), r -> new ArrayList<>()).add(e.getValue());
    }
    out.values().forEach(slots -> slots.sort(Comparator.comparingLong(Slot::seq)));
    return out;
  }

  /**
   * The first {@value #SCAN_LIMIT} slots of a room above its watermark, however far past it they
   * are: what {@link #scan} found none of means a hole of more than {@value #SCAN_LIMIT} numbers
   * right above the watermark, and its end is the slot after it.
   */
  private List<Slot> scanBeyond(RoomMark mark) {
    return jdbc.query(
        "SELECT seq, created_at FROM messages WHERE room = ? AND seq > ? ORDER BY seq LIMIT "
            + SCAN_LIMIT,
        ps -> {
          ps.setString(1, mark.room());
          ps.setLong(2, mark.sealedThrough());
        },
        rs -> new Slot(rs.getLong(1), rs.getLong(2)));
  }

  /** Decides from a room's slots above its watermark, in seq order, what to seal. */
  private static Sealing decide(RoomMark mark, List<Slot> slots, long now, long minAgeMillis) {
    List<MessageRow> tombstones = new ArrayList<>();
    long complete = mark.sealedThrough();
    boolean blocked = false;
    long expected = mark.sealedThrough() + 1;
    for (Slot s : slots) {
      if (s.seq() > expected) {
        boolean oldEnough = now - s.createdAt() >= minAgeMillis;
        long room = MAX_TOMBSTONES - tombstones.size();
        if (!oldEnough || room <= 0) {
          blocked = true;
        } else {
          long end = Math.min(s.seq(), expected + room);
          for (long seq = expected; seq < end; seq++) {
            tombstones.add(MessageRow.tombstone(mark.room(), seq, SEALED_REASON));
          }
          blocked |= end < s.seq();
          if (!blocked) {
            complete = s.seq();
          }
        }
      } else if (!blocked) {
        complete = s.seq();
      }
      expected = s.seq() + 1;
    }
    return new Sealing(mark, tombstones, complete);
  }

  /**
   * Writes the tombstones and raised watermarks of several rooms in one transaction.
   *
   * @return how many tombstones were inserted
   */
  private int write(List<Sealing> rooms, long now) {
    return jdbc.inTransaction(
        c -> {
          List<MessageRow> tombstones = new ArrayList<>();
          List<Sealing> raised = new ArrayList<>();
          for (Sealing s : rooms) {
            tombstones.addAll(s.tombstones());
            if (s.through() > s.mark().sealedThrough()) {
              raised.add(s);
            }
          }
          int inserted =
              tombstones.isEmpty() ? 0 : MessageStore.insertTombstones(c, tombstones, now);
          CounterStore.add(
              c,
              Map.of(
                  Counter.TOMBSTONES.key(),
                  (long) inserted,
                  Counter.SEALED_GAPS.key(),
                  (long) inserted),
              CounterStore.shard(rooms.get(0).mark().room()));
          if (!raised.isEmpty()) {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO room_watermarks (room, sealed_through, updated_at) VALUES "
                        + String.join(",", Collections.nCopies(raised.size(), "(?,?,?)"))
                        + " ON DUPLICATE KEY UPDATE sealed_through ="
                        + " GREATEST(sealed_through, VALUES(sealed_through)),"
                        + " updated_at = VALUES(updated_at)")) {
              int i = 1;
              for (Sealing s : raised) {
                ps.setString(i++, s.mark().room());
                ps.setLong(i++, s.through());
                ps.setLong(i++, now);
              }
              ps.executeUpdate();
            }
          }
          return inserted;
        });
  }
}
