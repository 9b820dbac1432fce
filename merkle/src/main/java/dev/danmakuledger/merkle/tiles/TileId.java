package dev.danmakuledger.merkle.tiles;

/**
 * Coordinates of one C2SP tlog-tiles tile: the {@code index}-th tile at tile {@code level}, holding
 * {@code width} consecutive Merkle tree hashes of tree height {@code 8 * level} (a full tile holds
 * {@value #FULL_WIDTH}). Entry bundles use the coordinates of their level-0 tile.
 *
 * <p>Levels stop at {@value #MAX_LEVEL}: a tree of fewer than 2^63 leaves never has a hash at tree
 * height 64 or above.
 *
 * @param level tile level, 0..{@value #MAX_LEVEL}
 * @param index position of the tile within its level, {@code >= 0}
 * @param width number of hashes, 1..{@value #FULL_WIDTH}; below {@value #FULL_WIDTH} it is partial
 */
public record TileId(int level, long index, int width) {
  /** Tree height covered by one tile (C2SP tlog-tiles: tiles are 8 levels high). */
  public static final int HEIGHT = 8;

  /** Hashes in a full tile, and entries in a full bundle. */
  public static final int FULL_WIDTH = 1 << HEIGHT;

  /** Highest tile level a tree of size below 2^63 uses. */
  public static final int MAX_LEVEL = 7;

  /** Validates the coordinates. */
  public TileId {
    if (level < 0 || level > MAX_LEVEL) {
      throw new IllegalArgumentException("tile level: got " + level + ", want 0.." + MAX_LEVEL);
    }
    long maxIndex = Tiles.shift(Long.MAX_VALUE, HEIGHT * (level + 1));
    if (index < 0 || index > maxIndex) {
      throw new IllegalArgumentException(
          "tile index: got " + index + ", want 0.." + maxIndex + " at level " + level);
    }
    if (width < 1 || width > FULL_WIDTH) {
      throw new IllegalArgumentException("tile width: got " + width + ", want 1.." + FULL_WIDTH);
    }
  }

  /** Returns the full tile at these coordinates. */
  public static TileId full(int level, long index) {
    return new TileId(level, index, FULL_WIDTH);
  }

  /** Whether this tile holds {@value #FULL_WIDTH} hashes. */
  public boolean isFull() {
    return width == FULL_WIDTH;
  }

  /** Returns the hash tile path {@code tile/<L>/<N>[.p/<W>]}. */
  public String path() {
    return "tile/" + level + "/" + TilePath.encodeIndex(index) + partialSuffix();
  }

  /**
   * Returns the entry bundle path {@code tile/entries/<N>[.p/<W>]}.
   *
   * @throws IllegalStateException unless this is a level-0 tile
   */
  public String entriesPath() {
    if (level != 0) {
      throw new IllegalStateException("entry bundles: got tile level " + level + ", want 0");
    }
    return "tile/entries/" + TilePath.encodeIndex(index) + partialSuffix();
  }

  private String partialSuffix() {
    return isFull() ? "" : ".p/" + width;
  }
}
