package dev.danmakuledger.testkit;

import dev.danmakuledger.edge.importer.BilibiliEntry;
import dev.danmakuledger.edge.importer.BilibiliImporter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Bilibili sample (1,239 real danmaku from one video: Chinese text, emoji, XML escapes, colour
 * and mode variety; from bilibili/DanmakuFlameMaster, Apache License 2.0, see the README beside
 * it), the same file {@code bin/demo} captures, read with {@code edge-agent import}'s own parser.
 */
public final class BilibiliSample {
  /** The class-path resource of the file. */
  public static final String RESOURCE = "/dev/danmakuledger/testkit/bilibili-comments.xml";

  /** Entries in the file. */
  public static final int SIZE = 1239;

  private BilibiliSample() {}

  /** The file's bytes, to be closed by the caller. */
  public static InputStream open() {
    InputStream in = BilibiliSample.class.getResourceAsStream(RESOURCE);
    if (in == null) {
      throw new IllegalStateException(
          RESOURCE + " is missing from the class path: build the testkit module");
    }
    return in;
  }

  /** Copies the file into {@code dir} (for tests of commands that read a file) and returns it. */
  public static Path copyTo(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve("bilibili-comments.xml");
    try (InputStream in = open()) {
      Files.copy(in, file);
    }
    return file;
  }

  /** Every entry, as {@link BilibiliImporter#readEntries} reads it. */
  public static List<BilibiliEntry> entries() {
    try (InputStream in = open()) {
      return BilibiliImporter.readEntries(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Bilibili sample", e);
    }
  }
}
