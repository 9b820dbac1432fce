package dev.danmakuledger.bench.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Finds a redis-server executable the harness can run (and kill) as its own child. */
final class RedisBinary {
  private RedisBinary() {}

  /** {@code $DANMAKU_REDIS_SERVER}, else {@code redis-server} on the PATH. */
  static Path find() throws IOException {
    return Executables.find("redis-server", "DANMAKU_REDIS_SERVER", List.of())
        .orElseThrow(
            () ->
                new IOException(
                    "no redis-server on the PATH (or DANMAKU_REDIS_SERVER): the chaos run needs a"
                        + " Redis it can kill and restart empty; install redis-server"));
  }
}
