package dev.danmakuledger.server.redis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import redis.embedded.core.ExecutableProvider;
import redis.embedded.model.OsArchitecture;
import redis.embedded.util.IO;

/**
 * The redis-server binary the embedded-redis jar ships, extracted once into a directory of ours and
 * reused by every later start, instead of a new copy in the system's temporary directory at every
 * start that nothing removes. A copy is written beside its final name and renamed into place, so
 * two processes extracting at once never write into a binary the other one runs.
 */
final class RedisBinary {
  private RedisBinary() {}

  /** The per-user directory for starts without a data directory (benchmarks and tests). */
  static Path userCache() {
    return Path.of(System.getProperty("user.home"), ".cache", "danmaku-ledger", "redis");
  }

  /** The binary in {@code dir}, extracted there first if it is not there yet. */
  static File extracted(Path dir) throws IOException {
    String resource =
        ExecutableProvider.newProvidedVersionsMap().get(OsArchitecture.detectOSandArchitecture());
    if (resource == null) {
      throw new IOException(
          "the embedded Redis has no redis-server for this system; start one and pass --redis");
    }
    Path target = dir.resolve(Path.of(resource).getFileName().toString());
    if (Files.isRegularFile(target) && Files.isExecutable(target)) {
      return target.toFile();
    }
    Files.createDirectories(dir);
    Path staging = Files.createTempDirectory(dir, "extracting-");
    try {
      File written = IO.writeResourceToExecutableFile(staging.toFile(), resource);
      Files.move(
          written.toPath(),
          target,
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      return target.toFile();
    } finally {
      try (Stream<Path> left = Files.walk(staging)) {
        for (Path p : left.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
