package dev.danmakuledger.bench.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finds a redis-server executable the harness can run (and kill) as its own child. */
final class RedisBinary {
  private RedisBinary() {}

  /** {@code $DANMAKU_REDIS_SERVER}, else {@code redis-server} on the PATH. */
  static Path find() throws IOException {
    String env = System.getenv("DANMAKU_REDIS_SERVER");
    if (env != null && Files.isExecutable(Path.of(env))) {
      return Path.of(env);
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        Path p = Path.of(dir, "redis-server");
        if (Files.isExecutable(p)) {
          return p;
        }
      }
    }
    throw new IOException(
        "no redis-server on the PATH (or DANMAKU_REDIS_SERVER): the chaos run needs a Redis it"
            + " can kill and restart empty; install redis-server");
  }
}
