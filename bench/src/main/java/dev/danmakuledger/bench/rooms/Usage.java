package dev.danmakuledger.bench.rooms;

import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the server processes hold at one moment: the threads and resident memory of the one that
 * holds the most (from {@code /proc/<pid>/status}) and the client connections of their Redis (from
 * {@code INFO clients}, less the probe's own).
 *
 * @param threads threads of the process with the most
 * @param rssBytes resident set size of the process with the largest
 * @param redisConnections connections to the Redis node of all the processes, the probe's not
 *     counted
 */
record Usage(long threads, long rssBytes, long redisConnections) {
  static Usage of(List<Long> pids, RedisCommands<String, String> redis) throws IOException {
    long threads = -1;
    long rss = -1;
    for (long pid : pids) {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("Threads:")) {
          threads = Math.max(threads, Long.parseLong(line.substring(8).strip()));
        } else if (line.startsWith("VmRSS:")) {
          rss = Math.max(rss, Long.parseLong(line.substring(6).replace("kB", "").strip()) * 1024);
        }
      }
    }
    long clients = -1;
    for (String line : redis.info("clients").split("\r?\n")) {
      if (line.startsWith("connected_clients:")) {
        clients = Long.parseLong(line.substring("connected_clients:".length()).strip()) - 1;
      }
    }
    return new Usage(threads, rss, clients);
  }

  /**
   * The process's threads grouped by name with digits taken out ({@code /proc/<pid>/task/* /comm},
   * which holds the first 15 characters), largest group first.
   */
  static String threadGroups(long pid) throws IOException {
    java.util.Map<String, Integer> groups = new java.util.TreeMap<>();
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          String name = Files.readString(t.resolve("comm")).strip().replaceAll("[0-9]+", "#");
          groups.merge(name, 1, Integer::sum);
        } catch (IOException e) {
          // the thread ended meanwhile
        }
      }
    }
    StringBuilder b = new StringBuilder();
    groups.entrySet().stream()
        .sorted((x, y) -> y.getValue() - x.getValue())
        .forEach(e -> b.append(e.getKey()).append('=').append(e.getValue()).append(' '));
    return b.toString().strip();
  }

  /** The larger of each figure. */
  Usage max(Usage o) {
    return new Usage(
        Math.max(threads, o.threads),
        Math.max(rssBytes, o.rssBytes),
        Math.max(redisConnections, o.redisConnections));
  }

  long rssMib() {
    return rssBytes / (1024 * 1024);
  }
}
