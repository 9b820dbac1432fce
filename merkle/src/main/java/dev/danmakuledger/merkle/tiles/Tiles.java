package dev.danmakuledger.merkle.tiles;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.ArrayList;
import java.util.List;

/**
 * Which tiles a tree of a given size consists of (C2SP tlog-tiles, "Partial Tiles"): at level
 * {@code l} there are {@code floor(s / 256^(l+1))} full tiles and, when {@code floor(s / 256^l) mod
 * 256} is not zero, one partial tile of that width. Empty tiles do not exist.
 */
public final class Tiles {
  private Tiles() {}

  /** Returns {@code size >>> bits}, which is 0 once {@code bits >= 64} (Java masks the shift). */
  static long shift(long size, int bits) {
    return bits >= 64 ? 0 : size >>> bits;
  }

  /** Number of hashes stored at tile level {@code level} for a tree of {@code size} leaves. */
  static long hashesAtLevel(long size, int level) {
    return shift(size, TileId.HEIGHT * level);
  }

  /** Number of full tiles at {@code level} for a tree of {@code size} leaves. */
  public static long fullTiles(long size, int level) {
    return shift(size, TileId.HEIGHT * (level + 1));
  }

  /**
   * Returns the tile at {@code (level, index)} as it exists in the tree of {@code size} leaves:
   * full if complete, else partial, else (beyond the tree or empty) null.
   */
  public static TileId tileAt(long size, int level, long index) {
    long full = fullTiles(size, level);
    if (index < full) {
      return TileId.full(level, index);
    }
    int width = (int) (hashesAtLevel(size, level) & (TileId.FULL_WIDTH - 1));
    return index == full && width > 0 ? new TileId(level, index, width) : null;
  }

  /** Returns the partial tiles of the tree of {@code size} leaves, lowest level first. */
  public static List<TileId> partialTiles(long size) {
    checkSize(size);
    List<TileId> out = new ArrayList<>();
    for (int level = 0; level <= TileId.MAX_LEVEL; level++) {
      TileId t = tileAt(size, level, fullTiles(size, level));
      if (t != null) {
        out.add(t);
      }
    }
    return out;
  }

  /**
   * Returns every tile of the tree of {@code size} leaves, level by level, full tiles in index
   * order followed by the level's partial tile. There are about {@code size / 255} of them.
   */
  public static List<TileId> forSize(long size) {
    checkSize(size);
    List<TileId> out = new ArrayList<>();
    for (int level = 0; level <= TileId.MAX_LEVEL; level++) {
      long full = fullTiles(size, level);
      for (long i = 0; i < full; i++) {
        out.add(TileId.full(level, i));
      }
      TileId partial = tileAt(size, level, full);
      if (partial != null) {
        out.add(partial);
      }
    }
    return out;
  }

  /**
   * Returns the root of a tree from the roots of the perfect subtrees that cover it, left to right
   * (RFC 9162 §2.1.1: the right part of every split is hashed first).
   */
  static byte[] foldRoot(List<byte[]> nodes) {
    if (nodes.isEmpty()) {
      return Rfc6962.emptyRoot();
    }
    byte[] acc = nodes.get(nodes.size() - 1);
    for (int i = nodes.size() - 2; i >= 0; i--) {
      acc = Rfc6962.nodeHash(nodes.get(i), acc);
    }
    return acc;
  }

  private static void checkSize(long size) {
    if (size < 0) {
      throw new IllegalArgumentException("tree size: got " + size + ", want >= 0");
    }
  }
}
