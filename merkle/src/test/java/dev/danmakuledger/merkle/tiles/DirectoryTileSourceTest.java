package dev.danmakuledger.merkle.tiles;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A mirrored directory as a tile source: reads inside the root only, bounded in size. */
class DirectoryTileSourceTest {
  @TempDir Path dir;

  @Test
  void readsFilesByTilePath() throws IOException {
    Path p = dir.resolve("tile/0/x001/234");
    Files.createDirectories(p.getParent());
    Files.write(p, new byte[] {1, 2, 3});
    assertArrayEquals(new byte[] {1, 2, 3}, new DirectoryTileSource(dir).read("tile/0/x001/234"));
  }

  @Test
  void missingFileIsNoSuchFile() {
    assertThrows(NoSuchFileException.class, () -> new DirectoryTileSource(dir).read("tile/0/000"));
  }

  @Test
  void pathsLeavingTheDirectoryAreRefused() throws IOException {
    Files.writeString(dir.resolveSibling("secret"), "x");
    DirectoryTileSource s = new DirectoryTileSource(dir);
    IOException e = assertThrows(IOException.class, () -> s.read("../secret"));
    assertTrue(e.getMessage().contains("leaves the directory"), e.getMessage());
    assertThrows(IOException.class, () -> s.read("/etc/passwd"));
  }

  @Test
  void oversizedFilesAreRefusedUnread() throws IOException {
    Path p = dir.resolve("tile/entries/000");
    Files.createDirectories(p.getParent());
    try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
      f.setLength(DirectoryTileSource.MAX_FILE_BYTES + 1);
    }
    IOException e =
        assertThrows(
            IOException.class, () -> new DirectoryTileSource(dir).read("tile/entries/000"));
    assertTrue(e.getMessage().contains("want at most"), e.getMessage());
  }
}
