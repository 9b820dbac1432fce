package dev.danmakuledger.bench.rooms;

import dev.danmakuledger.bench.chaos.HaproxyBalancer;
import dev.danmakuledger.bench.chaos.HaproxyConfig;
import dev.danmakuledger.bench.ingest.Dirs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The processes of the rooms benchmark: a redis-server of its own (no persistence) and the sync
 * servers, each a separate JVM so that its threads and memory are its own; with more than one,
 * HAProxy in front of them (docs/operations.md, "Several instances behind HAProxy"). A proxied
 * connection takes two open files of the balancer's; when the connections asked for need more than
 * one process may open here, several HAProxy processes each balance over every instance and the
 * clients spread over them, as behind DNS round robin. Stopped on close.
 */
final class RoomsProcesses implements AutoCloseable {
  private static final HttpClient READY_PROBE = HttpClient.newHttpClient();

  private final List<Process> children = new ArrayList<>();
  private final List<Process> servers = new ArrayList<>();
  private final RedisClient probeClient;
  private final StatefulRedisConnection<String, String> probe;
  private final int redisPort;
  private final List<HaproxyBalancer> balancers = new ArrayList<>();
  private final List<URI> entries = new ArrayList<>();
  private String enrollToken;

  RoomsProcesses(Path root) throws IOException, InterruptedException {
    redisPort = freePort();
    Process redis =
        new ProcessBuilder(
                "redis-server",
                "--port",
                Integer.toString(redisPort),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--maxclients",
                "20000")
            .redirectErrorStream(true)
            .redirectOutput(root.resolve("redis.log").toFile())
            .start();
    children.add(redis);
    probeClient = RedisClient.create("redis://127.0.0.1:" + redisPort);
    StatefulRedisConnection<String, String> c = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (c == null) {
      try {
        c = probeClient.connect();
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw new IOException("redis-server did not start: see " + root.resolve("redis.log"), e);
        }
        Thread.sleep(100);
      }
    }
    probe = c;
  }

  String redisUri() {
    return "redis://127.0.0.1:" + redisPort;
  }

  RedisCommands<String, String> redis() {
    return probe.sync();
  }

  /**
   * Starts {@code count} sync servers on this Redis with {@code heap} and the extra {@code flags}
   * (with more than one, {@code flags} must name a shared database), the second and later with the
   * first one's tokens and key, and with more than one HAProxy for {@code connections} client
   * connections in front of them; waits until every one is ready.
   */
  void startServers(
      Path root, int count, String heap, List<String> flags, String classpath, int connections)
      throws IOException, InterruptedException {
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String name = i == 0 ? "server" : "server-" + (char) ('a' + i);
      Path data = root.resolve(name);
      Files.createDirectories(data);
      if (i > 0) {
        Dirs.shareInstanceFiles(root.resolve("server"), data);
      }
      int port = freePort();
      ports.add(port);
      startServer(data, port, root.resolve("sync-" + name + ".log"), heap, flags, classpath);
    }
    enrollToken =
        Files.readString(root.resolve("server").resolve("enroll.token"), StandardCharsets.UTF_8)
            .strip();
    if (count == 1) {
      entries.add(URI.create("http://127.0.0.1:" + ports.get(0)));
      return;
    }
    long files = openFileLimit() - 1_000;
    int processes = (int) Math.ceil(2.0 * connections / files);
    for (int i = 0; i < processes; i++) {
      HaproxyConfig config =
          new HaproxyConfig(
              freePort(),
              ports,
              (connections + processes - 1) / processes,
              HaproxyConfig.STREAM_BUFFER_BYTES);
      HaproxyBalancer b = HaproxyBalancer.start(config, root.resolve("haproxy-" + i));
      balancers.add(b);
      URI entry = URI.create("http://127.0.0.1:" + b.port());
      entries.add(entry);
      awaitReady(
          entry,
          20,
          () -> true,
          "haproxy not ready: see " + root.resolve("haproxy-" + i).resolve("haproxy.log"));
    }
  }

  /** The hard limit of open files a process started from this one may raise itself to. */
  private static long openFileLimit() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
      if (line.startsWith("Max open files")) {
        String hard = line.substring("Max open files".length()).strip().split("\\s+")[1];
        return hard.equals("unlimited") ? Long.MAX_VALUE / 4 : Long.parseLong(hard);
      }
    }
    throw new IOException("no \"Max open files\" in /proc/self/limits");
  }

  private void startServer(
      Path data, int port, Path log, String heap, List<String> flags, String classpath)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx" + heap, "-cp", classpath, "dev.danmakuledger.server.Main"));
    cmd.addAll(
        List.of(
            "--data-dir",
            data.toString(),
            "--port",
            Integer.toString(port),
            "--redis",
            redisUri()));
    cmd.addAll(flags);
    Process server =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    servers.add(server);
    children.add(0, server);
    awaitReady(
        URI.create("http://127.0.0.1:" + port),
        120,
        server::isAlive,
        "sync server not ready: see " + log);
  }

  /**
   * Waits until {@code uri} answers {@code /readyz} with 200; fails with {@code failure} after
   * {@code seconds} or as soon as {@code alive} says the process is gone.
   */
  private static void awaitReady(URI uri, long seconds, BooleanSupplier alive, String failure)
      throws IOException, InterruptedException {
    HttpRequest readyz = HttpRequest.newBuilder(uri.resolve("/readyz")).build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      try {
        if (READY_PROBE.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (!alive.getAsBoolean() || System.nanoTime() > deadline) {
        throw new IOException(failure);
      }
      Thread.sleep(200);
    }
  }

  /** Where the {@code i}th client connects: the server itself, or one of the balancers in turn. */
  URI entry(int i) {
    return entries.get(Math.floorMod(i, entries.size()));
  }

  /** How many balancers the clients spread over (none with one server). */
  int balancerCount() {
    return balancers.size();
  }

  String enrollToken() {
    return enrollToken;
  }

  /** Each server's threads grouped by name, one line a server. */
  String threadGroups() throws IOException {
    List<String> lines = new ArrayList<>();
    for (Process server : servers) {
      lines.add(Usage.threadGroups(server.pid()));
    }
    return String.join("\n           ", lines);
  }

  Usage usage() throws IOException {
    return Usage.of(servers.stream().map(Process::pid).toList(), redis());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    for (HaproxyBalancer b : balancers) {
      try {
        b.stop();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    probe.close();
    probeClient.shutdown();
    for (Process p : children) {
      p.destroy();
      try {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
