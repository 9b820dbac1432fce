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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * SQL side of the room transparency logs (docs/room-log.md, "Integration" and "Serving"): the
 * {@code room_logs} row per room, the stored tiles and entry bundles ({@code room_tiles}), and the
 * committed slots the integrator appends. One integration step is one transaction under the room's
 * row lock ({@code SELECT ... FOR UPDATE}) with a version check on the update, so two server
 * instances never extend the same room log at once; the one that waits sees the new size.
 */
public final class RoomLogStore {
  /** Extends a room log from its current state and the next committed slots. */
  @FunctionalInterface
  public interface Step {
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

  /**
   * Rooms whose highest committed number is above their integrated size, in name order. Two
   * index-only queries joined here, as in the gap sealer.
   */
  public List<String> roomsBehind() {
    Map<String, Long> sizes = new HashMap<>();
    for (Map.Entry<String, Long> e :
        jdbc.query(
            "SELECT room, tree_size FROM room_logs",
            ps -> {},
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
      sizes.put(e.getKey(), e.getValue());
    }
    List<String> behind = new ArrayList<>();
    for (Map.Entry<String, Long> e :
        jdbc.query(
            "SELECT room, MAX(seq) FROM messages GROUP BY room ORDER BY room",
            ps -> {},
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))) {
      if (e.getValue() > sizes.getOrDefault(e.getKey(), 0L)) {
        behind.add(e.getKey());
      }
    }
    return behind;
  }

  /** The room's log head, if anything was ever integrated or published for it. */
  public Optional<RoomLogRow> log(String room) {
    return jdbc.queryOne(ROW + " WHERE room = ?", ps -> ps.setString(1, room), RoomLogStore::row);
  }

  /** The stored bytes of one tile or bundle, exactly as served. */
  public Optional<byte[]> tile(String room, RoomTile.Kind kind, TileId id) {
    return jdbc.queryOne(
        "SELECT data FROM room_tiles WHERE room = ? AND kind = ? AND tile_level = ? AND idx = ?"
            + " AND width = ?",
        ps -> bindTile(ps, room, kind, id),
        rs -> rs.getBytes(1));
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

  /**
   * Runs one integration step for {@code room}: locks (creating if needed) the room's row, reads up
   * to {@code maxSlots} committed slots above its size, and stores what {@code step} returns.
   *
   * @return the new head, or empty when the step wrote nothing
   * @throws IllegalStateException if the row changed under the lock (not expected; the caller's
   *     next run starts again from the stored state)
   */
  public Optional<RoomLogRow> integrate(String room, int maxSlots, Step step) {
    long now = clock.millis();
    return jdbc.inTransaction(
        c -> {
          ensureRow(c, room, now);
          RoomLogRow current = lock(c, room);
          List<LogSlot> slots = slots(c, room, current.size(), maxSlots);
          Optional<Extension> ext;
          try {
            ext = step.extend(current, slots, path -> read(room, path, tileIn(c)));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          } catch (TileException e) {
            throw new IllegalStateException(
                "room " + room + ": stored tiles: " + e.getMessage(), e);
          }
          if (ext.isEmpty()) {
            return Optional.<RoomLogRow>empty();
          }
          Extension x = ext.get();
          for (RoomTile t : x.tiles()) {
            store(c, room, t);
          }
          update(c, room, current.version(), x, now);
          return Optional.of(
              new RoomLogRow(
                  room,
                  x.size(),
                  x.root(),
                  x.checkpoint(),
                  x.publishedAt(),
                  current.version() + 1));
        });
  }

  private static TileLookup tileIn(Connection c) {
    return (room, kind, id) -> {
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT data FROM room_tiles WHERE room = ? AND kind = ? AND tile_level = ?"
                  + " AND idx = ? AND width = ?")) {
        bindTile(ps, room, kind, id);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(rs.getBytes(1)) : Optional.empty();
        }
      }
    };
  }

  private static void bindTile(PreparedStatement ps, String room, RoomTile.Kind kind, TileId id)
      throws SQLException {
    ps.setString(1, room);
    ps.setString(2, kind.code());
    ps.setInt(3, id.level());
    ps.setLong(4, id.index());
    ps.setInt(5, id.width());
  }

  private static void ensureRow(Connection c, String room, long now) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT IGNORE INTO room_logs"
                + " (room, tree_size, root_hash, checkpoint, published_at, version, updated_at)"
                + " VALUES (?, 0, ?, NULL, 0, 0, ?)")) {
      ps.setString(1, room);
      ps.setBytes(2, Rfc6962.emptyRoot());
      ps.setLong(3, now);
      ps.executeUpdate();
    }
  }

  private static RoomLogRow lock(Connection c, String room) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(ROW + " WHERE room = ? FOR UPDATE")) {
      ps.setString(1, room);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("room log " + room + ": got no row, want one");
        }
        return row(rs);
      }
    }
  }

  private static List<LogSlot> slots(Connection c, String room, long size, int max)
      throws SQLException {
    List<LogSlot> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT m.seq, m.status, m.reason, m.message_id, m.device_id, m.device_idx,"
                + " m.idempotency_key, r.canonical FROM messages m LEFT JOIN device_records r"
                + " ON r.device_id = m.device_id AND r.idx = m.device_idx"
                + " WHERE m.room = ? AND m.seq > ? ORDER BY m.seq LIMIT "
                + Jdbc.positive(max))) {
      ps.setString(1, room);
      ps.setLong(2, size);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new LogSlot(
                  rs.getLong(1),
                  MessageStatus.valueOf(rs.getString(2)),
                  rs.getString(3),
                  Jdbc.getLong(rs, 4),
                  rs.getString(5),
                  Jdbc.getLong(rs, 6),
                  rs.getString(7),
                  rs.getBytes(8)));
        }
      }
    }
    return out;
  }

  /**
   * Stores one tile: a full tile replaces the partial tiles of its index (C2SP tlog-tiles lets
   * clients read a missing partial tile from the full one); a partial tile of a size stored before
   * is the same bytes and is kept.
   */
  private static void store(Connection c, String room, RoomTile t) throws SQLException {
    TileId id = t.id();
    if (id.isFull()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "DELETE FROM room_tiles WHERE room = ? AND kind = ? AND tile_level = ? AND idx = ?"
                  + " AND width < ?")) {
        bindTile(ps, room, t.kind(), id);
        ps.executeUpdate();
      }
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT IGNORE INTO room_tiles (room, kind, tile_level, idx, width, data)"
                + " VALUES (?, ?, ?, ?, ?, ?)")) {
      bindTile(ps, room, t.kind(), id);
      ps.setBytes(6, t.data());
      ps.executeUpdate();
    }
  }

  private static void update(Connection c, String room, long version, Extension x, long now)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE room_logs SET tree_size = ?, root_hash = ?, checkpoint = ?, published_at = ?,"
                + " version = version + 1, updated_at = ? WHERE room = ? AND version = ?")) {
      ps.setLong(1, x.size());
      ps.setBytes(2, x.root());
      ps.setString(3, x.checkpoint());
      ps.setLong(4, x.publishedAt());
      ps.setLong(5, now);
      ps.setString(6, room);
      ps.setLong(7, version);
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException(
            "room log " + room + ": version changed under the lock, want " + version);
      }
    }
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
