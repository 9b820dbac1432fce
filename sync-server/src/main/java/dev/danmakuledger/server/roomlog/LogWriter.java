package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.tiles.BundleWriter;
import dev.danmakuledger.merkle.tiles.Tile;
import dev.danmakuledger.merkle.tiles.TileException;
import dev.danmakuledger.merkle.tiles.TileSource;
import dev.danmakuledger.merkle.tiles.TileWriter;
import dev.danmakuledger.server.storage.RoomTile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The in-memory tip of one room log: the C2SP tlog-tiles hash tiles and entry bundles that are not
 * yet full (merkle.tiles {@link TileWriter} and {@link BundleWriter}), resumable from the stored
 * partial tiles. Appending returns the full tiles completed; {@link #partials()} the partial tiles
 * of the current size, stored for every published size.
 *
 * <p>Mutable and not thread-safe; one integration step at a time uses it.
 */
final class LogWriter {
  private final TileWriter tiles;
  private final BundleWriter bundles;

  private LogWriter(TileWriter tiles, BundleWriter bundles) {
    this.tiles = tiles;
    this.bundles = bundles;
  }

  static LogWriter resume(long size, TileSource stored) throws IOException, TileException {
    if (size == 0) {
      return new LogWriter(TileWriter.empty(), BundleWriter.empty());
    }
    return new LogWriter(TileWriter.resume(size, stored), BundleWriter.resume(size, stored));
  }

  long size() {
    return tiles.size();
  }

  /** The writer itself, its two writers and their lists, about: what an empty room's tip holds. */
  static final long BASE_BYTES = 1_024;

  /** A held hash: 32 bytes, an array header and a list slot. */
  static final long HASH_BYTES = 56;

  /** What a held entry costs beside its bytes: an array header and a list slot. */
  static final long ENTRY_OVERHEAD_BYTES = 24;

  /**
   * About how many bytes of heap this writer holds: its partial hash tiles and partial entry
   * bundle, which is what differs between rooms.
   */
  long retainedBytes() {
    return BASE_BYTES
        + HASH_BYTES * tiles.pendingHashes()
        + ENTRY_OVERHEAD_BYTES * bundles.pendingEntries()
        + bundles.pendingBytes();
  }

  byte[] root() {
    return tiles.root();
  }

  /** Appends one entry; returns the full hash tiles and entry bundle it completed. */
  List<RoomTile> append(byte[] entry) {
    List<RoomTile> out = new ArrayList<>(2);
    bundles
        .append(entry)
        .ifPresent(b -> out.add(new RoomTile(RoomTile.Kind.ENTRIES, b.id(), b.data())));
    for (Tile t : tiles.append(Rfc6962.leafHash(entry))) {
      out.add(new RoomTile(RoomTile.Kind.HASH, t.id(), t.data()));
    }
    return out;
  }

  /** The partial hash tiles and entry bundle of the current size. */
  List<RoomTile> partials() {
    List<RoomTile> out = new ArrayList<>();
    bundles
        .partialBundle()
        .ifPresent(b -> out.add(new RoomTile(RoomTile.Kind.ENTRIES, b.id(), b.data())));
    for (Tile t : tiles.partialTiles()) {
      out.add(new RoomTile(RoomTile.Kind.HASH, t.id(), t.data()));
    }
    return out;
  }
}
