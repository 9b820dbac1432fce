package dev.danmakuledger.server.storage;

import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.tiles.TileException;
import dev.danmakuledger.merkle.tiles.TileId;
import dev.danmakuledger.merkle.tiles.TilePath;
import dev.danmakuledger.merkle.tiles.TileSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * SQL side of the room transparency logs (docs/room-log.md, "Integration" and "Serving"): the
 * {@code room_logs} row per room, the stored tiles and entry bundles ({@code room_tiles}), and the
 * committed slots the integrator appends. One integration step is one transaction under the rooms'
 * row locks ({@code SELECT ... FOR UPDATE}, in name order) with a version check on each update, so
 * two server instances never extend the same room log at once: a scheduled step passes over the
 * rooms another instance's step holds ({@link Contended#SKIP}), a forced one waits for them and
 * sees the new size.
 */
public final class RoomLogStore {
  /** Extends room logs from their current state and their next committed slots. */
  public interface Step {
    /**
     * Whether to extend the room now; asked under the lock, before any slot is read, so that a room
     * that is not due costs no read of its slots.
     */
    boolean due(RoomLogRow current);

    /**
     * The committed slots directly above {@code current.size()} that the caller holds in memory,
     * and up to which number the slots after them are to be read from SQL.
     */
    Held held(RoomLogRow current);

    /**
     * Returns the extension to store, or empty when there is nothing to write.
     *
     * @param current the locked row
     * @param slots committed slots above {@code current.size()}, in seq order, possibly with holes
     * @param stored the tiles stored so far (read in the same transaction)
     */
    Optional<Extension> extend(RoomLogRow current, List<LogSlot> slots, TileSource stored)
        throws IOException, TileException;
  }

  /**
   * What a step holds of a room's next slots: a run of them directly above the room's size, in seq
   * order, and the number up to which the slots after that run are read from SQL ({@code
   * readThrough} at or below the run's end: none).
   */
  public record Held(List<LogSlot> run, long readThrough) {
    public Held {
      run = List.copyOf(run);
    }
  }

  /** What one integration step writes: the new head and the tiles it completed or re-cut. */
  public record Extension(
      long size, byte[] root, String checkpoint, long publishedAt, List<RoomTile> tiles) {
    public Extension {
      Rfc6962.checkHash("root", root);
      root = root.clone();
      tiles = List.copyOf(tiles);
    }

    @Override
    public byte[] root() {
      return root.clone();
    }
  }

  private static final String ROW =
      "SELECT room, tree_size, root_hash, checkpoint, published_at, version FROM room_logs";

  private final DataSource ds;
  private final Jdbc jdbc;
  private final Clock clock;

  public RoomLogStore(Database db, Clock clock) {
    this.ds = db.dataSource();
    this.jdbc = new Jdbc(ds);
    this.clock = clock;
  }

  /** How far a room's log is integrated and how far its slots are committed. */
  public record Progress(long size, long highest) {
    public boolean isBehind() {
      return highest > size;
    }
  }

  /**
   * The integrated size and the highest committed number of every room with a slot, rooms in name
   * order. Two index-only queries joined here, as in the gap sealer.
   */
  public SortedMap<String, Progress> progress() {
    Map<String, Long> sizes = new HashMap<>();
    for (Map.Entry<String, Long> e :
        jdbc.query(
            "SELECT room, tree_size FROM room_logs",
            ps -> {},
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
      sizes.put(e.getKey(), e.getValue());
    }
    SortedMap<String, Progress> out = new TreeMap<>();
    for (Map.Entry<String, Long> e :
        jdbc.query(
            "SELECT room, MAX(seq) FROM messages GROUP BY room ORDER BY room",
            ps -> {},
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
      out.put(e.getKey(), new Progress(sizes.getOrDefault(e.getKey(), 0L), e.getValue()));
    }
    return out;
  }

  /** Rooms in one {@code IN} list. */
  private static final int ROOMS_PER_QUERY = 500;

  /**
   * The integrated size of each of {@code rooms}, 0 for a room without a log yet: what a run reads
   * when it knows which rooms grew and how far.
   */
  public SortedMap<String, Long> sizes(Collection<String> rooms) {
    List<String> all = new ArrayList<>(new TreeSet<>(rooms));
    SortedMap<String, Long> sizes = new TreeMap<>();
    all.forEach(room -> sizes.put(room, 0L));
    for (int from = 0; from < all.size(); from += ROOMS_PER_QUERY) {
      List<String> part = all.subList(from, Math.min(all.size(), from + ROOMS_PER_QUERY));
      for (Map.Entry<String, Long> e :
          jdbc.query(
              "SELECT room, tree_size FROM room_logs WHERE room IN ("
                  + String.join(",", Collections.nCopies(part.size(), "?"))
                  + ")",
              ps -> bindRooms(ps, part),
              rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
        sizes.put(e.getKey(), e.getValue());
      }
    }
    return sizes;
  }

  private static void bindRooms(PreparedStatement ps, List<String> rooms) throws SQLException {
    for (int i = 0; i < rooms.size(); i++) {
      ps.setString(i + 1, rooms.get(i));
    }
  }

  /** The room's log head, if anything was ever integrated or published for it. */
  public Optional<RoomLogRow> log(String room) {
    return jdbc.queryOne(ROW + " WHERE room = ?", ps -> ps.setString(1, room), RoomLogStore::row);
  }

  private static final String TILE =
      "SELECT width, from_width, data, encoding FROM room_tiles WHERE room = ? AND kind = ?"
          + " AND tile_level = ? AND idx = ? AND width <= ? ORDER BY width";

  /** The bytes of one stored tile or bundle, exactly as served. */
  public Optional<byte[]> tile(String room, RoomTile.Kind kind, TileId id) {
    return jdbc.read("room tile", c -> tileIn(c).find(room, kind, id));
  }

  /** One stored row of a tile's index: the hashes or entries {@code [from, width)}. */
  private record Piece(int width, int from, byte[] data) {}

  /**
   * The served bytes of the tile {@code id} from the rows of its index up to its width: the row of
   * its width, preceded by the tile of that row's {@code from_width} when the row holds only the
   * piece its step appended; empty when no row has its width. A hash tile must hold exactly {@code
   * width} hashes.
   *
   * @throws DamagedRowException if a row does not decode, a piece's predecessor is missing or the
   *     assembled hash tile has another size
   */
  private static Optional<byte[]> assemble(ResultSet rs, String room, RoomTile.Kind kind, TileId id)
      throws SQLException {
    Map<Integer, Piece> byWidth = new HashMap<>();
    while (rs.next()) {
      int width = rs.getInt(1);
      String key = tileKey(room, kind, id.level(), id.index(), width);
      byte[] data = TileEncoding.of(rs.getString(4), key).decode(rs.getBytes(3), key);
      byWidth.put(width, new Piece(width, rs.getInt(2), data));
    }
    if (!byWidth.containsKey(id.width())) {
      return Optional.empty();
    }
    List<byte[]> parts = new ArrayList<>();
    int total = 0;
    int width = id.width();
    while (true) {
      Piece p = byWidth.get(width);
      String key = tileKey(room, kind, id.level(), id.index(), width);
      if (p == null) {
        throw new DamagedRowException(
            "room_tiles", key, "missing, want the tile a wider piece of " + id + " extends");
      }
      if (p.from() < 0 || p.from() >= p.width()) {
        throw new DamagedRowException(
            "room_tiles", key, "from_width " + p.from() + ", want 0.." + (p.width() - 1));
      }
      parts.add(p.data());
      total += p.data().length;
      if (p.from() == 0) {
        break;
      }
      width = p.from();
    }
    byte[] data = new byte[total];
    int pos = 0;
    for (int i = parts.size() - 1; i >= 0; i--) {
      byte[] part = parts.get(i);
      System.arraycopy(part, 0, data, pos, part.length);
      pos += part.length;
    }
    if (kind == RoomTile.Kind.HASH && data.length != id.width() * Rfc6962.HASH_SIZE) {
      throw new DamagedRowException(
          "room_tiles",
          tileKey(room, kind, id.level(), id.index(), id.width()),
          data.length + " bytes, want " + id.width() + " hashes of " + Rfc6962.HASH_SIZE);
    }
    return Optional.of(data);
  }

  /** A tile row's key as a damaged-row alert names it. */
  static String tileKey(String room, RoomTile.Kind kind, int level, long index, int width) {
    return "(" + room + ", " + kind.code() + ", " + level + ", " + index + ", " + width + ")";
  }

  /** A tile source over the stored tiles of {@code room}, for proofs (tile paths as in C2SP). */
  public TileSource tiles(String room) {
    return path -> read(room, path, this::tile);
  }

  private interface TileLookup {
    Optional<byte[]> find(String room, RoomTile.Kind kind, TileId id) throws SQLException;
  }

  private static byte[] read(String room, String path, TileLookup lookup) throws IOException {
    RoomTile.Kind kind =
        path.startsWith("tile/entries/") ? RoomTile.Kind.ENTRIES : RoomTile.Kind.HASH;
    TileId id =
        kind == RoomTile.Kind.ENTRIES ? TilePath.parseEntries(path) : TilePath.parseTile(path);
    try {
      return lookup.find(room, kind, id).orElseThrow(() -> new NoSuchFileException(path));
    } catch (SQLException e) {
      throw new IOException("room " + room + " " + path + ": " + e.getMessage(), e);
    }
  }

  /** What a step does about rooms whose rows another transaction holds locked. */
  public enum Contended {
    /** Waits for them: the step sees what the other one wrote. */
    WAIT,
    /** Passes over them: the instance holding them is extending them now. */
    SKIP
  }

  /**
   * Runs one integration step for each of {@code rooms}, all in one transaction (one commit for the
   * run, however many rooms it extends): creates the rows of rooms that have none (in a short
   * transaction of its own), locks the rooms' rows in name order, and for each room that {@link
   * Step#due} accepts takes up to {@code maxSlots} committed slots above its size (those {@link
   * Step#held} holds, then the rest read from SQL for all rooms at once) and stores what {@code
   * step} returns. Rooms another transaction holds are waited for or left out, as {@code contended}
   * says.
   *
   * @return the new head of each room the step wrote, by room
   * @throws IllegalStateException if a row changed under the lock (not expected; the caller's next
   *     run starts again from the stored state)
   */
  public Map<String, RoomLogRow> integrate(
      Collection<String> rooms, int maxSlots, Contended contended, Step step) {
    long now = clock.millis();
    List<String> names = new ArrayList<>(new TreeSet<>(rooms));
    if (names.isEmpty()) {
      return Map.of();
    }
    List<String> missing = missingRows(names);
    if (!missing.isEmpty()) {
      jdbc.inTransaction(
          c -> {
            insertRows(c, missing, now);
            return null;
          });
    }
    return jdbc.inTransaction(
        c -> {
          Map<String, RoomLogRow> heads = new LinkedHashMap<>();
          try (RoomLogWrites writes = new RoomLogWrites(c, now)) {
            extendAll(c, lock(c, names, contended), maxSlots, step, writes, heads);
            writes.execute();
          }
          return heads;
        });
  }

  /**
   * Those of {@code rooms} (sorted) without a {@code room_logs} row, by a read that takes no lock:
   * an insert that finds a row takes a shared lock on it and would wait for a step holding it.
   */
  private List<String> missingRows(List<String> rooms) {
    String marks = String.join(",", Collections.nCopies(rooms.size(), "?"));
    TreeSet<String> missing = new TreeSet<>(rooms);
    missing.removeAll(
        jdbc.query(
            "SELECT room FROM room_logs WHERE room IN (" + marks + ")",
            ps -> bindRooms(ps, rooms),
            rs -> rs.getString(1)));
    return new ArrayList<>(missing);
  }

  /** A due room under its lock with the slots its step holds in memory. */
  private record Holding(RoomLogRow current, Held held) {}

  /** A due room under its lock with the slots its step extends from. */
  private record Due(RoomLogRow current, List<LogSlot> slots) {}

  /**
   * Runs the step of every due room, queueing its writes: first the slots of every room, then the
   * device leaf hashes of the slots read from SQL, each device's records read once for all rooms
   * (records of one device are spread over many rooms), then each room's extension.
   */
  private static void extendAll(
      Connection c,
      List<RoomLogRow> locked,
      int maxSlots,
      Step step,
      RoomLogWrites writes,
      Map<String, RoomLogRow> heads)
      throws SQLException {
    List<Holding> holding = new ArrayList<>();
    for (RoomLogRow current : locked) {
      if (step.due(current)) {
        holding.add(new Holding(current, step.held(current)));
      }
    }
    Map<String, List<LogSlot>> read = slots(c, holding, maxSlots);
    List<Due> due = new ArrayList<>();
    for (Holding h : holding) {
      List<LogSlot> slots = new ArrayList<>(h.held().run());
      slots.addAll(read.getOrDefault(h.current().room(), List.of()));
      due.add(new Due(h.current(), slots));
    }
    Map<String, Map<Long, byte[]>> leaves = leafHashes(c, due);
    for (Due d : due) {
      RoomLogRow current = d.current();
      String room = current.room();
      List<LogSlot> slots = withLeafHashes(d.slots(), leaves);
      Optional<Extension> ext;
      try {
        ext = step.extend(current, slots, path -> read(room, path, tileIn(c)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (TileException e) {
        throw new IllegalStateException("room " + room + ": stored tiles: " + e.getMessage(), e);
      }
      if (ext.isEmpty()) {
        continue;
      }
      Extension x = ext.get();
      writes.store(room, current.size(), x.tiles());
      writes.update(room, current.version(), x);
      heads.put(
          room,
          new RoomLogRow(
              room, x.size(), x.root(), x.checkpoint(), x.publishedAt(), current.version() + 1));
    }
  }

  /** A message slot whose device leaf hash is still to be read. */
  private static boolean needsLeafHash(LogSlot s) {
    return s.deviceLeafHash() == null && s.deviceId() != null && s.deviceIndex() != null;
  }

  /**
   * The leaf hashes of the device records of every slot of {@code due} without one, by device and
   * index: each device's records read in one pass.
   */
  private static Map<String, Map<Long, byte[]>> leafHashes(Connection c, List<Due> due)
      throws SQLException {
    Map<String, List<Long>> records = new TreeMap<>();
    for (Due d : due) {
      for (LogSlot s : d.slots()) {
        if (needsLeafHash(s)) {
          records.computeIfAbsent(s.deviceId(), k -> new ArrayList<>()).add(s.deviceIndex());
        }
      }
    }
    Map<String, Map<Long, byte[]>> out = new HashMap<>();
    for (Map.Entry<String, List<Long>> e : records.entrySet()) {
      Map<Long, byte[]> hashes = new HashMap<>();
      DeviceBundles.canonicals(c, e.getKey(), e.getValue())
          .forEach((index, canonical) -> hashes.put(index, Rfc6962.leafHash(canonical)));
      out.put(e.getKey(), hashes);
    }
    return out;
  }

  /**
   * {@code slots} with the leaf hashes from {@code leaves} where they had none; a message whose
   * record row is not visible keeps none (the integrator treats it as not yet committed).
   */
  private static List<LogSlot> withLeafHashes(
      List<LogSlot> slots, Map<String, Map<Long, byte[]>> leaves) {
    List<LogSlot> out = new ArrayList<>(slots.size());
    for (LogSlot s : slots) {
      out.add(
          needsLeafHash(s)
              ? s.withDeviceLeafHash(
                  leaves.getOrDefault(s.deviceId(), Map.of()).get(s.deviceIndex()))
              : s);
    }
    return out;
  }

  private static TileLookup tileIn(Connection c) {
    return (room, kind, id) -> {
      try (PreparedStatement ps = c.prepareStatement(TILE)) {
        bindTile(ps, room, kind, id);
        try (ResultSet rs = ps.executeQuery()) {
          return assemble(rs, room, kind, id);
        }
      }
    };
  }

  static void bindTile(PreparedStatement ps, String room, RoomTile.Kind kind, TileId id)
      throws SQLException {
    ps.setString(1, room);
    ps.setString(2, kind.code());
    ps.setInt(3, id.level());
    ps.setLong(4, id.index());
    ps.setInt(5, id.width());
  }

  /** Empty rows for {@code rooms}; a room whose row another instance created meanwhile is kept. */
  private static void insertRows(Connection c, List<String> rooms, long now) throws SQLException {
    String values = String.join(",", Collections.nCopies(rooms.size(), "(?, 0, ?, NULL, 0, 0, ?)"));
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT IGNORE INTO room_logs"
                + " (room, tree_size, root_hash, checkpoint, published_at, version, updated_at)"
                + " VALUES "
                + values)) {
      int i = 1;
      for (String room : rooms) {
        ps.setString(i++, room);
        ps.setBytes(i++, Rfc6962.emptyRoot());
        ps.setLong(i++, now);
      }
      ps.executeUpdate();
    }
  }

  /**
   * Locks the rows of {@code rooms} (sorted), in that order, and returns them; with {@link
   * Contended#SKIP} only those no other transaction holds.
   */
  private static List<RoomLogRow> lock(Connection c, List<String> rooms, Contended contended)
      throws SQLException {
    String marks = String.join(",", Collections.nCopies(rooms.size(), "?"));
    List<RoomLogRow> rows = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            ROW
                + " WHERE room IN ("
                + marks
                + ") ORDER BY room FOR UPDATE"
                + (contended == Contended.SKIP ? " SKIP LOCKED" : ""))) {
      int i = 1;
      for (String room : rooms) {
        ps.setString(i++, room);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs));
        }
      }
    }
    if (contended == Contended.WAIT && rows.size() != rooms.size()) {
      throw new IllegalStateException(
          "room logs " + rooms + ": got " + rows.size() + " rows, want " + rooms.size());
    }
    return rows;
  }

  /**
   * The committed slots of each room of {@code holding} after its held run, up to its {@link
   * Held#readThrough} and at most {@code maxSlots} numbers above its size, by room in seq order,
   * without their device leaf hashes ({@link #leafHashes} reads those for every room of the step at
   * once). One statement for all rooms: a primary-key range a room, joined by {@code UNION ALL}.
   */
  private static Map<String, List<LogSlot>> slots(Connection c, List<Holding> holding, int maxSlots)
      throws SQLException {
    List<String> rooms = new ArrayList<>();
    List<long[]> ranges = new ArrayList<>();
    for (Holding h : holding) {
      long size = h.current().size();
      long after = size + h.held().run().size();
      long through = Math.min(h.held().readThrough(), size + maxSlots);
      if (through > after) {
        rooms.add(h.current().room());
        ranges.add(new long[] {after, through});
      }
    }
    Map<String, List<LogSlot>> out = new HashMap<>();
    String part =
        "SELECT room, seq, status, reason, message_id, device_id, device_idx, idempotency_key"
            + " FROM messages WHERE room = ? AND seq > ? AND seq <= ?";
    for (int from = 0; from < rooms.size(); from += ROOMS_PER_QUERY) {
      int to = Math.min(rooms.size(), from + ROOMS_PER_QUERY);
      try (PreparedStatement ps =
          c.prepareStatement(String.join(" UNION ALL ", Collections.nCopies(to - from, part)))) {
        int i = 1;
        for (int r = from; r < to; r++) {
          ps.setString(i++, rooms.get(r));
          ps.setLong(i++, ranges.get(r)[0]);
          ps.setLong(i++, ranges.get(r)[1]);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.computeIfAbsent(rs.getString(1), r -> new ArrayList<>()).add(slot(rs));
          }
        }
      }
    }
    out.values().forEach(slots -> slots.sort(Comparator.comparingLong(LogSlot::seq)));
    return out;
  }

  /** A slot from the columns after the room, without its device leaf hash. */
  private static LogSlot slot(ResultSet rs) throws SQLException {
    return new LogSlot(
        rs.getLong(2),
        MessageStatus.valueOf(rs.getString(3)),
        rs.getString(4),
        Jdbc.getLong(rs, 5),
        rs.getString(6),
        Jdbc.getLong(rs, 7),
        rs.getString(8),
        null);
  }

  private static RoomLogRow row(ResultSet rs) throws SQLException {
    return new RoomLogRow(
        rs.getString(1),
        rs.getLong(2),
        rs.getBytes(3),
        rs.getString(4),
        rs.getLong(5),
        rs.getLong(6));
  }
}
