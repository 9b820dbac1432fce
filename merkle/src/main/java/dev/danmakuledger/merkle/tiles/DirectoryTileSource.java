package dev.danmakuledger.merkle.tiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads tiles and bundles from a directory laid out as the C2SP tlog-tiles URL space, e.g. a mirror
 * fetched with any HTTP client. Files larger than a full entry bundle can be are refused unread.
 */
public final class DirectoryTileSource implements TileSource {
  /** A full bundle of 256 maximal entries; no tile or bundle is larger. */
  static final long MAX_FILE_BYTES = TileId.FULL_WIDTH * (2L + EntryBundle.MAX_ENTRY_BYTES);

  private final Path root;

  public DirectoryTileSource(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  @Override
  public byte[] read(String path) throws IOException {
    Path p = root.resolve(path).normalize();
    if (!p.startsWith(root) || path.contains("\\")) {
      throw new IOException("path \"" + path + "\" leaves the directory " + root);
    }
    long size = Files.size(p);
    if (size > MAX_FILE_BYTES) {
      throw new IOException(
          p + ": got " + size + " bytes, want at most " + MAX_FILE_BYTES + " for a tile or bundle");
    }
    return Files.readAllBytes(p);
  }
}
