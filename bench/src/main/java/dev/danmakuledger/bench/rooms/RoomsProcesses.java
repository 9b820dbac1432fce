package dev.danmakuledger.bench.rooms;

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

/**
 * The processes of the rooms benchmark: a redis-server of its own (no persistence) and one sync
 * server as a separate JVM, so that its threads and memory are its own; stopped on close.
 */
final class RoomsProcesses implements AutoCloseable {
  private final List<Process> children = new ArrayList<>();
  private final RedisClient probeClient;
  private final StatefulRedisConnection<String, String> probe;
  private final int redisPort;
  private Process server;
  private URI serverUri;
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

  /** Starts the sync server with {@code heap} and the extra {@code flags}; waits until ready. */
  void startServer(Path data, String heap, List<String> flags, String classpath)
      throws IOException, InterruptedException {
    int port = freePort();
    Files.createDirectories(data);
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
    server =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(data.resolveSibling("sync-server.log").toFile())
            .start();
    children.add(0, server);
    serverUri = URI.create("http://127.0.0.1:" + port);
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(serverUri.resolve("/readyz")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          break;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (!server.isAlive() || System.nanoTime() > deadline) {
        throw new IOException(
            "sync server not ready: see " + data.resolveSibling("sync-server.log"));
      }
      Thread.sleep(200);
    }
    enrollToken = Files.readString(data.resolve("enroll.token"), StandardCharsets.UTF_8).strip();
  }

  URI serverUri() {
    return serverUri;
  }

  String enrollToken() {
    return enrollToken;
  }

  String threadGroups() throws IOException {
    return Usage.threadGroups(server.pid());
  }

  Usage usage() throws IOException {
    return Usage.of(server.pid(), redis());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
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
