package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.server.redis.EmbeddedRedis;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where one ingest benchmark run goes: the given Redis or an embedded redis-server, a fresh
 * database ({@link FreshDatabase}) and a temporary directory. Afterwards the run's keys are deleted
 * from a given Redis (an embedded one is stopped), the database is dropped and the directory
 * removed.
 */
final class RunTarget {
  /** The run, given its database, Redis URI, temporary directory and a description of both. */
  interface Body<T> {
    T run(FreshDatabase db, String redisUri, Path tmp, String target) throws Exception;
  }

  private RunTarget() {}

  /**
   * Runs {@code body} on the target.
   *
   * @param name the benchmark's name, for the directory and the "target" line on {@code log}
   * @param redisUri a Redis, or null for an embedded one
   * @param jdbcUrl a MariaDB/MySQL server, or null for H2
   * @param roomPrefixes the prefixes of the run's room names, whose Redis keys and fields are
   *     deleted from a given Redis afterwards ({@link RedisKeys#deleteRooms})
   */
  static <T> T run(
      String name,
      String redisUri,
      String jdbcUrl,
      List<String> roomPrefixes,
      PrintStream log,
      Body<T> body)
      throws Exception {
    Path tmp = Files.createTempDirectory("danmaku-bench-" + name + "-");
    EmbeddedRedis embedded = null;
    try {
      String redis = redisUri;
      if (redis == null) {
        embedded = EmbeddedRedis.start();
        redis = embedded.uri();
      }
      try (FreshDatabase db = FreshDatabase.create(jdbcUrl, tmp.resolve("server"))) {
        String target = db.describe() + ", Redis " + (embedded == null ? redis : "embedded");
        log.println(name + ": target " + target);
        return body.run(db, redis, tmp, target);
      } finally {
        if (embedded == null) {
          for (String prefix : roomPrefixes) {
            RedisKeys.deleteRooms(redis, prefix);
          }
        }
      }
    } finally {
      if (embedded != null) {
        embedded.close();
      }
      Dirs.deleteTree(tmp);
    }
  }
}
