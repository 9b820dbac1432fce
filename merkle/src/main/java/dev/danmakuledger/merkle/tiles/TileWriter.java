package dev.danmakuledger.merkle.tiles;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the C2SP tlog-tiles hash tiles of a growing log from its appended leaf hashes, without
 * ever rehashing old leaves: it keeps only the rightmost, not yet full tile of each level (at most
 * 8 x 256 hashes). Each append returns the full tiles it completed, which never change and are
 * stored once; {@link #partialTiles()} returns the partial tiles of the current size, which a log
 * stores for every size it publishes a checkpoint for. The root is computed from the partial tiles
 * alone, because the bits of the size at tile level {@code l} are exactly the width of that level's
 * partial tile.
 *
 * <p>Mutable and not thread-safe.
 */
public final class TileWriter {
  private final List<List<byte[]>> pending = new ArrayList<>();
  private final long[] fullTiles = new long[TileId.MAX_LEVEL + 1];
  private long size;

  private TileWriter() {
    for (int l = 0; l <= TileId.MAX_LEVEL; l++) {
      pending.add(new ArrayList<>());
    }
  }

  /** Returns a writer for the empty log. */
  public static TileWriter empty() {
    return new TileWriter();
  }

  /**
   * Resumes the log of {@code size} leaves from its stored partial tiles (a missing partial tile is
   * read from the prefix of its full tile, as C2SP tlog-tiles allows).
   *
   * @throws IOException if a tile cannot be read
   * @throws TileException if a stored tile is malformed
   */
  public static TileWriter resume(long size, TileSource source) throws IOException, TileException {
    TileReader reader = new TileReader(source, size);
    TileWriter w = new TileWriter();
    w.size = size;
    for (int l = 0; l <= TileId.MAX_LEVEL; l++) {
      w.fullTiles[l] = Tiles.fullTiles(size, l);
    }
    for (TileId id : Tiles.partialTiles(size)) {
      Tile t = reader.tile(id.level(), id.index());
      for (int i = 0; i < id.width(); i++) {
        w.pending.get(id.level()).add(t.hash(i));
      }
    }
    return w;
  }

  /** Returns how many hashes the writer holds: those of the partial tiles of the current size. */
  public int pendingHashes() {
    int n = 0;
    for (List<byte[]> level : pending) {
      n += level.size();
    }
    return n;
  }

  /** Returns the number of leaves appended so far. */
  public long size() {
    return size;
  }

  /**
   * Appends one leaf hash and returns the full tiles that became complete (none for 255 of 256
   * appends).
   *
   * @throws IllegalArgumentException if the hash is not 32 bytes
   * @throws IllegalStateException if the log already holds 2^63 - 1 leaves
   */
  public List<Tile> append(byte[] leafHash) {
    Rfc6962.checkHash("leafHash", leafHash);
    if (size == Long.MAX_VALUE) {
      throw new IllegalStateException("tree size: got " + size + ", want below 2^63 - 1");
    }
    List<Tile> completed = new ArrayList<>(1);
    byte[] hash = leafHash.clone();
    for (int level = 0; level <= TileId.MAX_LEVEL; level++) {
      List<byte[]> p = pending.get(level);
      p.add(hash);
      if (p.size() < TileId.FULL_WIDTH) {
        break;
      }
      Tile full = new Tile(TileId.full(level, fullTiles[level]), concat(p));
      completed.add(full);
      fullTiles[level]++;
      hash = Rfc6962.perfectRoot(p, 0, TileId.FULL_WIDTH);
      p.clear();
    }
    size++;
    return completed;
  }

  /** Appends leaf hashes in order and returns every full tile they completed, in order. */
  public List<Tile> appendAll(List<byte[]> leafHashes) {
    List<Tile> out = new ArrayList<>();
    for (byte[] h : leafHashes) {
      out.addAll(append(h));
    }
    return out;
  }

  /** Returns the partial tiles of the current size, lowest level first (none for size 0). */
  public List<Tile> partialTiles() {
    List<Tile> out = new ArrayList<>();
    for (int level = 0; level <= TileId.MAX_LEVEL; level++) {
      List<byte[]> p = pending.get(level);
      if (!p.isEmpty()) {
        out.add(new Tile(new TileId(level, fullTiles[level], p.size()), concat(p)));
      }
    }
    return out;
  }

  /** Returns the RFC 6962 root of the current tree. */
  public byte[] root() {
    List<byte[]> nodes = new ArrayList<>();
    for (int level = TileId.MAX_LEVEL; level >= 0; level--) {
      List<byte[]> p = pending.get(level);
      int offset = 0;
      for (int bit = TileId.HEIGHT - 1; bit >= 0; bit--) {
        if ((p.size() & (1 << bit)) != 0) {
          nodes.add(Rfc6962.perfectRoot(p, offset, 1 << bit));
          offset += 1 << bit;
        }
      }
    }
    return Tiles.foldRoot(nodes);
  }

  private static byte[] concat(List<byte[]> hashes) {
    byte[] out = new byte[hashes.size() * Rfc6962.HASH_SIZE];
    for (int i = 0; i < hashes.size(); i++) {
      System.arraycopy(hashes.get(i), 0, out, i * Rfc6962.HASH_SIZE, Rfc6962.HASH_SIZE);
    }
    return out;
  }
}
