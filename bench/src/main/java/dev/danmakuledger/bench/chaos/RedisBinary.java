package dev.danmakuledger.bench.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Finds a redis-server executable the harness can run (and kill) as its own child. */
final class RedisBinary {
  private RedisBinary() {}

  /** The RDB file of a node, in its directory. */
  static final String RDB = "dump.rdb";

  /**
   * The command line of a redis-server the harness owns, on {@code 127.0.0.1:port} with its data in
   * {@code dir}: it never saves on its own ({@code --save ""}, no AOF), so only {@code BGSAVE}
   * writes its RDB file; options of the node's role follow.
   */
  static List<String> command(Path binary, int port, Path dir, String... more) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                binary.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--dbfilename",
                RDB,
                "--save",
                "",
                "--appendonly",
                "no"));
    cmd.addAll(List.of(more));
    return cmd;
  }

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
