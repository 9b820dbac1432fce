package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.tiles.EntryBundle;
import dev.danmakuledger.merkle.tiles.TileId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The directory {@code fetch-room} writes a room log mirror into. Every write stays inside it: the
 * relative path must resolve below the directory, and no existing element of it may be a symbolic
 * link (one planted in the mirror could otherwise redirect a write anywhere). Files are written to
 * a temporary name and moved into place, so a reader never sees half a tile.
 */
final class Mirror {
  private final Path root;

  private Mirror(Path root) {
    this.root = root;
  }

  static Mirror open(Path dir) throws UsageException {
    try {
      Files.createDirectories(dir);
      return new Mirror(dir.toRealPath());
    } catch (IOException e) {
      throw new UsageException("--out: cannot use " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Whether a regular file of exactly {@code length} bytes is at {@code path}. */
  boolean hasFile(String path, long length) throws UsageException {
    Path p = inside(path);
    try {
      return Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && Files.size(p) == length;
    } catch (IOException e) {
      throw new UsageException(p + ": " + e.getMessage(), e);
    }
  }

  /** Whether a well-formed full entry bundle is at {@code path}. */
  boolean hasBundle(String path) throws UsageException {
    Path p = inside(path);
    if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    try {
      EntryBundle.decode(Files.readAllBytes(p), TileId.FULL_WIDTH);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    } catch (IOException e) {
      throw new UsageException(p + ": " + e.getMessage(), e);
    }
  }

  void write(String path, byte[] data) throws UsageException {
    Path p = inside(path);
    try {
      Files.createDirectories(p.getParent());
      inside(path);
      Path tmp = Files.createTempFile(p.getParent(), ".fetch-", ".tmp");
      Files.write(tmp, data);
      Files.move(tmp, p, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UsageException("cannot write " + p + ": " + e.getMessage(), e);
    }
  }

  /** Resolves {@code path} below the root, refusing anything that would leave it. */
  private Path inside(String path) throws UsageException {
    Path p = root.resolve(path).normalize();
    if (!p.startsWith(root) || path.contains("\\") || p.equals(root)) {
      throw new UsageException("path \"" + path + "\" leaves the mirror " + root);
    }
    for (Path q = p; !q.equals(root); q = q.getParent()) {
      if (Files.isSymbolicLink(q)) {
        throw new UsageException(q + " is a symbolic link; refusing to write through it");
      }
    }
    return p;
  }
}
