package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The numbered slots of every room (docs/architecture.md §5): messages with a UNIQUE index over
 * their idempotency key's {@link KeyHash} as the last duplicate guard and tombstones for burned
 * numbers, both under the primary key (room, seq), so that one writer of a number wins and every
 * other insert of it fails or is a no-op. Also the room views the API serves.
 */
final class MessageStore {
  /** Most keys per IN (...) lookup. */
  private static final int KEY_CHUNK = 500;

  static final String MESSAGE_COLUMNS = MessageRows.COLUMNS;

  private static final String INSERT =
      "INSERT INTO messages ("
          + MESSAGE_COLUMNS
          + ", created_at, updated_at, key_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

  private final Jdbc jdbc;

  MessageStore(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Inserts room slots as one JDBC batch, and the held ones into the review queue; any slot, key or
   * id already taken fails them all.
   */
  static void insert(Connection c, List<MessageRow> rows, long now) throws SQLException {
    List<MessageRow> held = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      for (MessageRow m : rows) {
        bind(ps, m, now);
        ps.addBatch();
        if (m.status() == MessageStatus.PENDING) {
          held.add(m);
        }
      }
      ps.executeBatch();
    }
    if (!held.isEmpty()) {
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO review_queue (room, seq, held_at) VALUES (?, ?, ?)")) {
        for (MessageRow m : held) {
          ps.setString(1, m.room());
          ps.setLong(2, m.seq());
          ps.setLong(3, now);
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
  }

  /** Takes a decided message out of the review queue (a no-op if it is not there). */
  static void unqueue(Connection c, String room, long seq) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("DELETE FROM review_queue WHERE room = ? AND seq = ?")) {
      ps.setString(1, room);
      ps.setLong(2, seq);
      ps.executeUpdate();
    }
  }

  /**
   * Inserts tombstones, leaving a slot that exists already as it is (one statement per row: drivers
   * that rewrite batches into multi-row inserts mangle {@code IGNORE}).
   *
   * @return how many tombstones were inserted
   */
  static int insertTombstones(Connection c, List<MessageRow> tombstones, long now)
      throws SQLException {
    int inserted = 0;
    try (PreparedStatement ps = c.prepareStatement(INSERT.replace("INSERT", "INSERT IGNORE"))) {
      for (MessageRow m : tombstones) {
        bind(ps, m, now);
        inserted += ps.executeUpdate();
      }
    }
    return inserted;
  }

  private static void bind(PreparedStatement ps, MessageRow m, long now) throws SQLException {
    ps.setString(1, m.room());
    ps.setLong(2, m.seq());
    Jdbc.setLong(ps, 3, m.messageId());
    ps.setString(4, m.idempotencyKey());
    ps.setString(5, m.contentHash());
    ps.setString(6, m.deviceId());
    Jdbc.setLong(ps, 7, m.deviceIndex());
    ps.setString(8, m.user());
    ps.setString(9, m.text());
    Jdbc.setLong(ps, 10, m.playbackMs());
    ps.setInt(11, m.mode());
    ps.setInt(12, m.color());
    ps.setInt(13, m.fontSize());
    ps.setLong(14, m.hlc());
    ps.setString(15, m.status().name());
    ps.setString(16, m.reason());
    ps.setLong(17, m.version());
    ps.setLong(18, now);
    ps.setLong(19, now);
    ps.setBytes(20, KeyHash.of(m.idempotencyKey()));
  }

  /** The stored messages for these keys (absent keys are missing from the map). */
  public Map<String, MessageRow> byKeys(Collection<String> keys) {
    Map<String, MessageRow> found = new HashMap<>();
    Set<String> wanted = new LinkedHashSet<>(keys);
    List<String> all = new ArrayList<>(wanted);
    for (int from = 0; from < all.size(); from += KEY_CHUNK) {
      List<String> chunk = all.subList(from, Math.min(all.size(), from + KEY_CHUNK));
      String marks = String.join(",", Collections.nCopies(chunk.size(), "?"));
      for (MessageRow m :
          jdbc.query(
              "SELECT " + MESSAGE_COLUMNS + " FROM messages WHERE key_hash IN (" + marks + ")",
              ps -> {
                for (int i = 0; i < chunk.size(); i++) {
                  ps.setBytes(i + 1, KeyHash.of(chunk.get(i)));
                }
              },
              MessageRows::read)) {
        if (wanted.contains(m.idempotencyKey())) {
          found.put(m.idempotencyKey(), m);
        }
      }
    }
    return found;
  }

  /** The room's high-water mark: its highest stored number (tombstones included), 0 if none. */
  public long highWater(String room) {
    return jdbc.queryOne(
            "SELECT MAX(seq) FROM messages WHERE room = ?",
            ps -> ps.setString(1, room),
            rs -> rs.getLong(1))
        .orElse(0L);
  }

  /**
   * The high-water marks of several rooms, {@value #KEY_CHUNK} rooms a query: every room of {@code
   * rooms} is in the map, 0 for a room with no slot.
   */
  public Map<String, Long> highWaters(Collection<String> rooms) {
    Map<String, Long> marks = new HashMap<>();
    List<String> all = new ArrayList<>(new LinkedHashSet<>(rooms));
    for (int from = 0; from < all.size(); from += KEY_CHUNK) {
      List<String> chunk = all.subList(from, Math.min(all.size(), from + KEY_CHUNK));
      for (Map.Entry<String, Long> e :
          jdbc.query(
              "SELECT room, MAX(seq) FROM messages WHERE room IN ("
                  + String.join(",", Collections.nCopies(chunk.size(), "?"))
                  + ") GROUP BY room",
              ps -> {
                for (int i = 0; i < chunk.size(); i++) {
                  ps.setString(i + 1, chunk.get(i));
                }
              },
              rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
        marks.put(e.getKey(), e.getValue());
      }
      for (String room : chunk) {
        marks.putIfAbsent(room, 0L);
      }
    }
    return marks;
  }

  /** Which of these numbers of a room are taken (by a message or a tombstone). */
  public Set<Long> takenSeqs(String room, Collection<Long> seqs) {
    Set<Long> taken = new HashSet<>();
    List<Long> all = new ArrayList<>(new LinkedHashSet<>(seqs));
    for (int from = 0; from < all.size(); from += KEY_CHUNK) {
      List<Long> chunk = all.subList(from, Math.min(all.size(), from + KEY_CHUNK));
      String marks = String.join(",", Collections.nCopies(chunk.size(), "?"));
      taken.addAll(
          jdbc.query(
              "SELECT seq FROM messages WHERE room = ? AND seq IN (" + marks + ")",
              ps -> {
                ps.setString(1, room);
                for (int i = 0; i < chunk.size(); i++) {
                  ps.setLong(i + 2, chunk.get(i));
                }
              },
              rs -> rs.getLong(1)));
    }
    return taken;
  }

  public Optional<MessageRow> byKey(String key) {
    return jdbc.queryOne(
        "SELECT " + MESSAGE_COLUMNS + " FROM messages WHERE key_hash = ? AND idempotency_key = ?",
        ps -> {
          ps.setBytes(1, KeyHash.of(key));
          ps.setString(2, key);
        },
        MessageRows::read);
  }

  public Optional<MessageRow> byId(long messageId) {
    return jdbc.queryOne(
        "SELECT " + MESSAGE_COLUMNS + " FROM messages WHERE message_id = ?",
        ps -> ps.setLong(1, messageId),
        MessageRows::read);
  }

  public Optional<MessageRow> at(String room, long seq) {
    return jdbc.queryOne(
        "SELECT " + MESSAGE_COLUMNS + " FROM messages WHERE room = ? AND seq = ?",
        ps -> {
          ps.setString(1, room);
          ps.setLong(2, seq);
        },
        MessageRows::read);
  }

  /** Slots of a room with seq greater than {@code after}, in seq order, tombstones included. */
  public List<MessageRow> roomPage(String room, long after, int limit) {
    return jdbc.query(
        "SELECT "
            + MESSAGE_COLUMNS
            + " FROM messages WHERE room = ? AND seq > ? ORDER BY seq LIMIT "
            + Jdbc.positive(limit),
        ps -> {
          ps.setString(1, room);
          ps.setLong(2, after);
        },
        MessageRows::read);
  }

  /** CONFIRMED messages of a room with seq greater than {@code after}, in seq order. */
  public List<MessageRow> confirmedAfter(String room, long after, int limit) {
    return jdbc.query(
        "SELECT "
            + MESSAGE_COLUMNS
            + " FROM messages WHERE status = 'CONFIRMED' AND room = ? AND seq > ?"
            + " ORDER BY seq LIMIT "
            + Jdbc.positive(limit),
        ps -> {
          ps.setString(1, room);
          ps.setLong(2, after);
        },
        MessageRows::read);
  }

  /** Messages held for review, oldest first (the review queue, docs/architecture.md §5). */
  public List<MessageRow> pending(int limit) {
    return jdbc.query(
        "SELECT "
            + MessageRows.columnsOf("m")
            + " FROM review_queue q JOIN messages m ON m.room = q.room AND m.seq = q.seq"
            + " WHERE m.status = 'PENDING' ORDER BY q.held_at, q.room, q.seq LIMIT "
            + Jdbc.positive(limit),
        ps -> {},
        MessageRows::read);
  }

  /** Per-room counts, rooms in name order; {@code since} bounds the recent-message count. */
  public List<RoomStats> rooms(long since) {
    return jdbc.query(
        "SELECT room, MAX(seq),"
            + " SUM(CASE WHEN status = 'TOMBSTONE' THEN 1 ELSE 0 END),"
            + " SUM(CASE WHEN status = 'CONFIRMED' THEN 1 ELSE 0 END),"
            + " SUM(CASE WHEN status = 'PENDING' THEN 1 ELSE 0 END),"
            + " SUM(CASE WHEN status = 'REJECTED' THEN 1 ELSE 0 END),"
            + " SUM(CASE WHEN created_at >= ? AND status <> 'TOMBSTONE' THEN 1 ELSE 0 END)"
            + " FROM messages GROUP BY room ORDER BY room",
        ps -> ps.setLong(1, since),
        rs ->
            new RoomStats(
                rs.getString(1),
                rs.getLong(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7)));
  }
}
