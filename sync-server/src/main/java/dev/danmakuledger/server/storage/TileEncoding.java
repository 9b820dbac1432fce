package dev.danmakuledger.server.storage;

import dev.danmakuledger.merkle.tiles.EntryBundle;
import dev.danmakuledger.merkle.tiles.TileId;
import java.io.ByteArrayOutputStream;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * How {@code room_tiles.data} is encoded (docs/room-log.md, "Integration"): whole entry bundles are
 * stored deflated (zlib, RFC 1950, at the fastest level: the text of entries takes about half the
 * space), hash tiles and the pieces a step appends to a partial tile as they are (hashes do not
 * compress, and a piece of a few entries barely does). Reading gives back the exact bytes that were
 * stored.
 */
enum TileEncoding {
  IDENTITY("identity"),
  DEFLATE("deflate");

  /** Largest bundle that can be stored: 256 entries of the largest size, with their prefixes. */
  static final int MAX_DECODED = TileId.FULL_WIDTH * (2 + EntryBundle.MAX_ENTRY_BYTES);

  private final String code;

  TileEncoding(String code) {
    this.code = code;
  }

  /** The {@code room_tiles.encoding} value. */
  String code() {
    return code;
  }

  /** The encoding stored for a tile of {@code kind}. */
  static TileEncoding forKind(RoomTile.Kind kind) {
    return kind == RoomTile.Kind.ENTRIES ? DEFLATE : IDENTITY;
  }

  /**
   * The encoding named {@code code}.
   *
   * @throws DamagedRowException naming {@code key} if it names none
   */
  static TileEncoding of(String code, String key) {
    for (TileEncoding e : values()) {
      if (e.code.equals(code)) {
        return e;
      }
    }
    throw new DamagedRowException(
        "room_tiles", key, "encoding " + code + ", want identity or deflate");
  }

  byte[] encode(byte[] data) {
    if (this == IDENTITY) {
      return data;
    }
    Deflater deflater = new Deflater(Deflater.BEST_SPEED);
    try {
      deflater.setInput(data);
      deflater.finish();
      ByteArrayOutputStream out = new ByteArrayOutputStream(data.length / 2 + 64);
      byte[] buf = new byte[8192];
      while (!deflater.finished()) {
        out.write(buf, 0, deflater.deflate(buf));
      }
      return out.toByteArray();
    } finally {
      deflater.end();
    }
  }

  /**
   * Returns the bytes that were encoded.
   *
   * @param key the row's key, named when it is damaged
   * @throws DamagedRowException if the stored bytes are not a complete zlib stream of at most
   *     {@link #MAX_DECODED} bytes (a server fault, not the client's)
   */
  byte[] decode(byte[] stored, String key) {
    if (this == IDENTITY) {
      return stored;
    }
    Inflater inflater = new Inflater();
    try {
      inflater.setInput(stored);
      ByteArrayOutputStream out = new ByteArrayOutputStream(stored.length * 2 + 64);
      byte[] buf = new byte[8192];
      while (!inflater.finished()) {
        int n = inflater.inflate(buf);
        if (n == 0
            && !inflater.finished()
            && (inflater.needsInput() || inflater.needsDictionary())) {
          throw new DamagedRowException(
              "room_tiles", key, "deflate stream of " + stored.length + " bytes is truncated");
        }
        if (out.size() + n > MAX_DECODED) {
          throw new DamagedRowException(
              "room_tiles", key, "inflates to over " + MAX_DECODED + " bytes, want a bundle");
        }
        out.write(buf, 0, n);
      }
      if (inflater.getRemaining() != 0) {
        throw new DamagedRowException(
            "room_tiles", key, inflater.getRemaining() + " bytes after the deflate stream");
      }
      return out.toByteArray();
    } catch (DataFormatException e) {
      throw new DamagedRowException("room_tiles", key, "not a deflate stream: " + e.getMessage());
    } finally {
      inflater.end();
    }
  }
}
