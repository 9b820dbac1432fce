package dev.danmakuledger.merkle.tiles;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.Proofs;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the tree of {@code size} leaves back from C2SP tlog-tiles tiles: the hash of any node, the
 * root, inclusion and consistency proofs, leaf hashes and entries. The hash of a node at tree
 * height {@code 8l + r} is the root of {@code 2^r} consecutive hashes of a level-{@code l} tile.
 * Tiles are fetched on demand, once, and must have exactly the width the size requires; a missing
 * partial tile is read from the prefix of its full tile, as C2SP tlog-tiles allows.
 *
 * <p>What it computes is only as good as the tiles: compare the root with a verified checkpoint
 * before trusting anything else. Not thread-safe.
 */
public final class TileReader {
  private final TileSource source;
  private final long size;
  private final Map<TileId, Tile> cache = new HashMap<>();

  public TileReader(TileSource source, long size) {
    if (size < 0) {
      throw new IllegalArgumentException("tree size: got " + size + ", want >= 0");
    }
    this.source = source;
    this.size = size;
  }

  public long size() {
    return size;
  }

  /**
   * Returns the tile at {@code (level, index)} as it exists in this tree.
   *
   * @throws TileException if the tile is not part of the tree, is missing or has the wrong length
   * @throws IOException if the source fails
   */
  public Tile tile(int level, long index) throws IOException, TileException {
    TileId id = Tiles.tileAt(size, level, index);
    if (id == null) {
      throw new TileException(
          "tile level " + level + " index " + index + " is not part of a tree of size " + size);
    }
    Tile t = cache.get(id);
    if (t == null) {
      t = fetch(id);
      cache.put(id, t);
    }
    return t;
  }

  /**
   * Returns the hash of the perfect subtree {@code id}, which must lie inside the tree.
   *
   * @throws TileException if the node is outside the tree or a tile is missing or malformed
   * @throws IOException if the source fails
   */
  public byte[] hash(NodeId id) throws IOException, TileException {
    if (id.end() > size || id.level() / TileId.HEIGHT > TileId.MAX_LEVEL) {
      throw new TileException("node " + id + " is not inside a tree of size " + size);
    }
    int level = id.level() / TileId.HEIGHT;
    int r = id.level() % TileId.HEIGHT;
    long first = id.index() << r;
    Tile t = tile(level, first >>> TileId.HEIGHT);
    int offset = (int) (first & (TileId.FULL_WIDTH - 1));
    List<byte[]> hashes = new ArrayList<>(1 << r);
    for (int i = 0; i < 1 << r; i++) {
      hashes.add(t.hash(offset + i));
    }
    return Rfc6962.perfectRoot(hashes, 0, 1 << r);
  }

  /** Returns the RFC 6962 root of the tree, from the tiles. */
  public byte[] root() throws IOException, TileException {
    List<NodeId> ids = new ArrayList<>();
    CompactRange.rangeNodes(0, size, ids);
    List<byte[]> nodes = new ArrayList<>(ids.size());
    for (NodeId id : ids) {
      nodes.add(hash(id));
    }
    return Tiles.foldRoot(nodes);
  }

  /** Returns leaf hash {@code index}, read from its level-0 tile. */
  public byte[] leafHash(long index) throws IOException, TileException {
    return hash(new NodeId(0, index));
  }

  /**
   * Returns the inclusion proof of leaf {@code index} (RFC 9162 §2.1.3.1).
   *
   * @throws IllegalArgumentException unless {@code 0 <= index < size}
   */
  public List<byte[]> inclusionProof(long index) throws IOException, TileException {
    Map<NodeId, byte[]> nodes = fetchAll(Proofs.inclusionNodes(index, size));
    return Proofs.inclusion(index, size, nodes::get);
  }

  /**
   * Returns the consistency proof from the tree of {@code oldSize} leaves to this one (RFC 9162
   * §2.1.4.1).
   *
   * @throws IllegalArgumentException unless {@code 0 <= oldSize <= size}
   */
  public List<byte[]> consistencyProof(long oldSize) throws IOException, TileException {
    Map<NodeId, byte[]> nodes = fetchAll(Proofs.consistencyNodes(oldSize, size));
    return Proofs.consistency(oldSize, size, nodes::get);
  }

  /**
   * Returns the entries of bundle {@code index}, checked to hash to the leaf hashes of its level-0
   * tile.
   *
   * @throws TileException if the bundle is missing, malformed or an entry does not match its tile
   */
  public List<byte[]> entries(long index) throws IOException, TileException {
    TileId id = Tiles.tileAt(size, 0, index);
    if (id == null) {
      throw new TileException("entry bundle " + index + " is not part of a tree of size " + size);
    }
    List<byte[]> entries = readBundle(id);
    Tile t = tile(0, index);
    for (int i = 0; i < entries.size(); i++) {
      if (!Arrays.equals(Rfc6962.leafHash(entries.get(i)), t.hash(i))) {
        throw new TileException(
            "entry " + (index * TileId.FULL_WIDTH + i) + " does not hash to its leaf in " + t);
      }
    }
    return entries;
  }

  /** Reads and decodes an entry bundle without comparing it to the tiles. */
  public List<byte[]> readBundle(TileId id) throws IOException, TileException {
    byte[] bytes;
    try {
      bytes = source.read(id.entriesPath());
    } catch (NoSuchFileException e) {
      if (id.isFull()) {
        throw new TileException("entry bundle " + id.entriesPath() + " is missing");
      }
      bytes = readFull(TileId.full(0, id.index()).entriesPath(), id.entriesPath());
      return prefixOfFullBundle(bytes, id);
    }
    try {
      return EntryBundle.decode(bytes, id.width());
    } catch (IllegalArgumentException e) {
      throw new TileException(id.entriesPath() + ": " + e.getMessage());
    }
  }

  private List<byte[]> prefixOfFullBundle(byte[] bytes, TileId id) throws TileException {
    try {
      return EntryBundle.decode(bytes, TileId.FULL_WIDTH).subList(0, id.width());
    } catch (IllegalArgumentException e) {
      throw new TileException(TileId.full(0, id.index()).entriesPath() + ": " + e.getMessage());
    }
  }

  private Map<NodeId, byte[]> fetchAll(List<NodeId> ids) throws IOException, TileException {
    Map<NodeId, byte[]> out = new HashMap<>();
    for (NodeId id : ids) {
      out.put(id, hash(id));
    }
    return out;
  }

  private Tile fetch(TileId id) throws IOException, TileException {
    byte[] bytes;
    try {
      bytes = source.read(id.path());
    } catch (NoSuchFileException e) {
      if (id.isFull()) {
        throw new TileException("tile " + id.path() + " is missing");
      }
      byte[] full = readFull(TileId.full(id.level(), id.index()).path(), id.path());
      if (full.length != TileId.FULL_WIDTH * Rfc6962.HASH_SIZE) {
        throw new TileException(
            TileId.full(id.level(), id.index()).path() + ": got " + full.length + " bytes");
      }
      bytes = Arrays.copyOf(full, id.width() * Rfc6962.HASH_SIZE);
    }
    if (bytes.length != id.width() * Rfc6962.HASH_SIZE) {
      throw new TileException(
          id.path()
              + ": got "
              + bytes.length
              + " bytes, want "
              + id.width() * Rfc6962.HASH_SIZE
              + " ("
              + id.width()
              + " hashes)");
    }
    return new Tile(id, bytes);
  }

  private byte[] readFull(String fullPath, String partialPath) throws IOException, TileException {
    try {
      return source.read(fullPath);
    } catch (NoSuchFileException e) {
      throw new TileException(partialPath + " is missing, and so is " + fullPath);
    }
  }
}
