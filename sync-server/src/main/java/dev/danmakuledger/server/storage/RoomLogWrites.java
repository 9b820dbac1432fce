package dev.danmakuledger.server.storage;

import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.tiles.TileId;
import dev.danmakuledger.merkle.tiles.Tiles;
import dev.danmakuledger.server.storage.RoomLogStore.Extension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The writes of one integration run, queued room by room and sent as three batches for all rooms
 * (tiles deleted, tiles inserted, heads updated) instead of a round trip or more a room.
 *
 * <p>Tiles: a full tile replaces the partial tiles of its index (C2SP tlog-tiles lets clients read
 * a missing partial tile from the full one) and is stored whole, entry bundles deflated ({@link
 * TileEncoding}); a partial tile that extends the partial tile of its index at the room's previous
 * size is stored as the piece it appended, so a step writes the bytes it added, not the whole
 * partial tile again; a partial tile of a size stored before is the same bytes and is kept. Only
 * the one index per level that was partial at the previous size can hold partial tiles, so only a
 * full tile there deletes any. A delete and an insert never touch the same row (the delete takes
 * the widths below the full tile's), so running all deletes before all inserts is the same as
 * running them room by room.
 */
final class RoomLogWrites implements AutoCloseable {
  private final PreparedStatement deletes;
  private final PreparedStatement inserts;
  private final PreparedStatement updates;
  private final long now;
  private final List<String> updated = new ArrayList<>();
  private int deleted;
  private int inserted;

  RoomLogWrites(Connection c, long now) throws SQLException {
    this.now = now;
    this.deletes =
        c.prepareStatement(
            "DELETE FROM room_tiles WHERE room = ? AND kind = ? AND tile_level = ? AND idx = ?"
                + " AND width < ?");
    this.inserts =
        c.prepareStatement(
            "INSERT IGNORE INTO room_tiles"
                + " (room, kind, tile_level, idx, width, from_width, data, encoding)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    this.updates =
        c.prepareStatement(
            "UPDATE room_logs SET tree_size = ?, root_hash = ?, checkpoint = ?,"
                + " published_at = ?, version = version + 1, updated_at = ?"
                + " WHERE room = ? AND version = ?");
  }

  /** Queues the tiles a step of {@code room} from {@code previousSize} produced. */
  void store(String room, long previousSize, List<RoomTile> tiles) throws SQLException {
    for (RoomTile t : tiles) {
      if (t.id().isFull() && partialWidth(previousSize, t.id()) > 0) {
        RoomLogStore.bindTile(deletes, room, t.kind(), t.id());
        deletes.addBatch();
        deleted++;
      }
    }
    for (RoomTile t : tiles) {
      int from = t.id().isFull() ? 0 : partialWidth(previousSize, t.id());
      if (from >= t.id().width()) {
        continue;
      }
      byte[] data = t.data();
      TileEncoding encoding = TileEncoding.forKind(t.kind());
      if (from > 0) {
        data = Arrays.copyOfRange(data, pieceStart(t, from), data.length);
        encoding = TileEncoding.IDENTITY;
      }
      RoomLogStore.bindTile(inserts, room, t.kind(), t.id());
      inserts.setInt(6, from);
      inserts.setBytes(7, encoding.encode(data));
      inserts.setString(8, encoding.code());
      inserts.addBatch();
      inserted++;
    }
  }

  /** Queues the new head of {@code room}, optimistically locked on {@code version}. */
  void update(String room, long version, Extension x) throws SQLException {
    updates.setLong(1, x.size());
    updates.setBytes(2, x.root());
    updates.setString(3, x.checkpoint());
    updates.setLong(4, x.publishedAt());
    updates.setLong(5, now);
    updates.setString(6, room);
    updates.setLong(7, version);
    updates.addBatch();
    updated.add(room);
  }

  /**
   * Sends what was queued.
   *
   * @throws IllegalStateException if a head changed under the lock (a count the driver reports that
   *     is not one row)
   */
  void execute() throws SQLException {
    if (deleted > 0) {
      deletes.executeBatch();
    }
    if (inserted > 0) {
      inserts.executeBatch();
    }
    if (updated.isEmpty()) {
      return;
    }
    int[] counts = updates.executeBatch();
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] != 1 && counts[i] != Statement.SUCCESS_NO_INFO) {
        throw new IllegalStateException(
            "room log "
                + updated.get(Math.min(i, updated.size() - 1))
                + ": version changed under the lock (updated "
                + counts[i]
                + " rows)");
      }
    }
  }

  @Override
  public void close() throws SQLException {
    try (deletes;
        inserts;
        updates) {
      // closes all three
    }
  }

  /**
   * Where the piece of {@code t} after its first {@code from} hashes or entries starts: entries are
   * found by their length prefixes (C2SP tlog-tiles entry bundles).
   */
  static int pieceStart(RoomTile t, int from) {
    byte[] data = t.data();
    if (t.kind() == RoomTile.Kind.HASH) {
      return from * Rfc6962.HASH_SIZE;
    }
    int pos = 0;
    for (int i = 0; i < from; i++) {
      if (data.length - pos < 2) {
        throw new IllegalArgumentException(
            "entry bundle " + t.id() + ": truncated before entry " + i + " of " + from);
      }
      pos += 2 + ((data[pos] & 0xff) << 8 | data[pos + 1] & 0xff);
    }
    if (pos > data.length) {
      throw new IllegalArgumentException(
          "entry bundle " + t.id() + ": entry " + (from - 1) + " runs past its end");
    }
    return pos;
  }

  /**
   * The width of the partial tile at {@code id}'s coordinates in the tree of {@code size}, or 0
   * when there it was full or absent.
   */
  private static int partialWidth(long size, TileId id) {
    TileId then = Tiles.tileAt(size, id.level(), id.index());
    return then != null && !then.isFull() ? then.width() : 0;
  }
}
