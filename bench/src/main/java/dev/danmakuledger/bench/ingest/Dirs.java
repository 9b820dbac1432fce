package dev.danmakuledger.bench.ingest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** A benchmark's directories: removing them, and preparing a second instance's. */
public final class Dirs {
  /**
   * What the instances of one deployment share (docs/operations.md, "Several instances"): the
   * tokens and the three keys.
   */
  private static final List<String> SHARED_INSTANCE_FILES =
      List.of("enroll.token", "admin.token", "server.key", "server-log.key", "server-cosigner.key");

  private Dirs() {}

  /**
   * Copies what the instances of one deployment share from the sync server data directory {@code
   * first} into {@code other}, replacing what {@code other} holds of it.
   */
  public static void shareInstanceFiles(Path first, Path other) throws IOException {
    for (String f : SHARED_INSTANCE_FILES) {
      Files.copy(first.resolve(f), other.resolve(f), StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Deletes {@code root} and everything under it; nothing if it does not exist. */
  public static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
