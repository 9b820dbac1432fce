package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.merkle.tiles.TileId;
import dev.danmakuledger.merkle.tiles.TilePath;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.storage.RoomLogRow;
import dev.danmakuledger.server.storage.RoomLogStore;
import dev.danmakuledger.server.storage.RoomTile;

/**
 * What the room log endpoints serve (docs/room-log.md, "Serving"; C2SP tlog-tiles): the latest
 * signed checkpoint and the stored tiles and entry bundles, byte for byte as integration stored
 * them — nothing is recomputed per request. Paths are parsed strictly (merkle.tiles {@link
 * TilePath}): a malformed path is a 400, a well-formed one that is not stored a 404.
 */
public final class RoomLogReads {
  /** Longest tile path accepted after {@code tile/}; canonical paths are far shorter. */
  static final int MAX_PATH = 128;

  /** A stored tile or bundle and whether it is full (and so immutable). */
  public record Served(byte[] data, boolean full) {
    public Served {
      data = data.clone();
    }

    @Override
    public byte[] data() {
      return data.clone();
    }
  }

  private final RoomLogStore store;

  public RoomLogReads(RoomLogStore store) {
    this.store = store;
  }

  /** The room's latest signed checkpoint note. */
  public String checkpoint(String room) {
    return store
        .log(room)
        .map(RoomLogRow::checkpoint)
        .orElseThrow(
            () ->
                new LedgerException(
                    ErrorCode.NOT_FOUND,
                    "room "
                        + room
                        + " has no published log checkpoint yet; retry after a message"
                        + " is stored and integrated"));
  }

  /**
   * The stored bytes at {@code path} (relative to the log prefix, e.g. {@code tile/0/x001/002.p/7}
   * or {@code tile/entries/000}).
   */
  public Served tile(String room, String path) {
    if (path.length() > MAX_PATH) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "tile path: got " + path.length() + " characters, want at most " + MAX_PATH);
    }
    RoomTile.Kind kind;
    TileId id;
    try {
      if (path.startsWith("tile/entries/")) {
        kind = RoomTile.Kind.ENTRIES;
        id = TilePath.parseEntries(path);
      } else {
        kind = RoomTile.Kind.HASH;
        id = TilePath.parseTile(path);
      }
    } catch (IllegalArgumentException e) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          e.getMessage() + " (C2SP tlog-tiles: tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>])");
    }
    byte[] data =
        store
            .tile(room, kind, id)
            .orElseThrow(
                () ->
                    new LedgerException(
                        ErrorCode.NOT_FOUND,
                        "room "
                            + room
                            + " log has no "
                            + path
                            + " (not integrated yet, or a"
                            + " partial tile replaced by its full tile)"));
    return new Served(data, id.isFull());
  }
}
