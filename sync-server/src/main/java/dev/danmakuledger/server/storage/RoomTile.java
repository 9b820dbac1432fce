package dev.danmakuledger.server.storage;

import dev.danmakuledger.merkle.tiles.TileId;
import java.util.Objects;

/**
 * One stored C2SP tlog-tiles object of a room log: a hash tile or an entry bundle, exactly the
 * bytes served (docs/room-log.md, "Serving").
 *
 * @param kind hash tile or entry bundle
 * @param id coordinates (level 0 for bundles)
 * @param data the bytes
 */
public record RoomTile(Kind kind, TileId id, byte[] data) {
  /** What a stored object is; {@link #code()} is the {@code room_tiles.kind} value. */
  public enum Kind {
    HASH("hash"),
    ENTRIES("entries");

    private final String code;

    Kind(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  public RoomTile {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(data, "data");
    if (kind == Kind.ENTRIES && id.level() != 0) {
      throw new IllegalArgumentException("entry bundle level: got " + id.level() + ", want 0");
    }
    data = data.clone();
  }

  @Override
  public byte[] data() {
    return data.clone();
  }
}
