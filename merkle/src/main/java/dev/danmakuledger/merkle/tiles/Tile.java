package dev.danmakuledger.merkle.tiles;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.Arrays;

/**
 * One C2SP tlog-tiles tile: its coordinates and its bytes, the concatenation of {@code id.width()}
 * 32-byte Merkle tree hashes. Immutable.
 *
 * @param id the tile's coordinates
 * @param data exactly {@code 32 * id.width()} bytes
 */
public record Tile(TileId id, byte[] data) {
  /** Checks the length and copies the bytes. */
  public Tile {
    if (id == null || data == null) {
      throw new IllegalArgumentException("tile: got null, want coordinates and bytes");
    }
    if (data.length != id.width() * Rfc6962.HASH_SIZE) {
      throw new IllegalArgumentException(
          "tile "
              + id.path()
              + ": got "
              + data.length
              + " bytes, want "
              + id.width() * Rfc6962.HASH_SIZE);
    }
    data = data.clone();
  }

  /** Returns a copy of the tile bytes. */
  @Override
  public byte[] data() {
    return data.clone();
  }

  /** Returns hash {@code i} of the tile, {@code 0 <= i < width}. */
  public byte[] hash(int i) {
    if (i < 0 || i >= id.width()) {
      throw new IllegalArgumentException(
          "tile hash: got index " + i + ", want 0.." + (id.width() - 1));
    }
    return Arrays.copyOfRange(data, i * Rfc6962.HASH_SIZE, (i + 1) * Rfc6962.HASH_SIZE);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Tile t && t.id.equals(id) && Arrays.equals(t.data, data);
  }

  @Override
  public int hashCode() {
    return id.hashCode() * 31 + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "Tile[" + id.path() + "]";
  }
}
