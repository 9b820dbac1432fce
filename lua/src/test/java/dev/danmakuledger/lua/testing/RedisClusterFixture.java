package dev.danmakuledger.lua.testing;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import redis.embedded.core.ExecutableProvider;

/**
 * A Redis Cluster of three masters on loopback ports for tests, started from the redis-server
 * binary that the com.github.codemonstur:embedded-redis jar ships (so it needs only a JDK and
 * Maven): each node with {@code --cluster-enabled yes}, the 16384 slots split in three with CLUSTER
 * ADDSLOTS, the nodes joined with CLUSTER MEET, ready once every node reports {@code
 * cluster_state:ok}.
 */
public final class RedisClusterFixture implements AutoCloseable {
  /** Slot ranges of the three masters, as {first, last}. */
  private static final int[][] SLOTS = {{0, 5460}, {5461, 10922}, {10923, 16383}};

  private final Path dir;
  private final List<Integer> ports;
  private final List<Process> processes;

  private RedisClusterFixture(Path dir, List<Integer> ports, List<Process> processes) {
    this.dir = dir;
    this.ports = ports;
    this.processes = processes;
  }

  /** Starts the three masters and waits (at most {@code timeout}) until the cluster is ok. */
  public static RedisClusterFixture start(Duration timeout) {
    Path dir;
    File binary;
    try {
      dir = Files.createTempDirectory("danmaku-redis-cluster");
      binary = ExecutableProvider.newJarResourceProvider().get();
    } catch (IOException e) {
      throw new UncheckedIOException("preparing the redis-server binary", e);
    }
    List<Integer> ports = new ArrayList<>();
    List<Process> processes = new ArrayList<>();
    RedisClusterFixture fixture = new RedisClusterFixture(dir, ports, processes);
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> processes.forEach(Process::destroyForcibly)));
    try {
      for (int i = 0; i < 3; i++) {
        int port = clusterPort(ports);
        ports.add(port);
        processes.add(startNode(binary, dir, port));
      }
      fixture.form(timeout);
      return fixture;
    } catch (RuntimeException e) {
      fixture.close();
      throw e;
    }
  }

  /** A free port whose cluster bus port (port + 10000) is free too. */
  private static int clusterPort(List<Integer> taken) {
    for (int tries = 0; tries < 100; tries++) {
      int port = RedisFixture.freePort();
      if (port < 55535 && !taken.contains(port) && portFree(port + 10000)) {
        return port;
      }
    }
    throw new IllegalStateException("got no free port pair (p, p+10000) in 100 tries");
  }

  private static boolean portFree(int port) {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort() == port;
    } catch (IOException e) {
      return false;
    }
  }

  private static Process startNode(File binary, Path dir, int port) {
    List<String> cmd =
        List.of(
            binary.getAbsolutePath(),
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes-" + port + ".conf",
            "--cluster-node-timeout",
            "5000",
            "--dir",
            dir.toString(),
            "--save",
            "",
            "--appendonly",
            "no");
    try {
      return new ProcessBuilder(cmd)
          .directory(dir.toFile())
          .redirectErrorStream(true)
          .redirectOutput(dir.resolve("node-" + port + ".log").toFile())
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("starting redis-server on port " + port, e);
    }
  }

  private void form(Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    for (int i = 0; i < 3; i++) {
      int port = ports.get(i);
      int[] range = SLOTS[i];
      withNode(
          port,
          deadline,
          sync -> sync.clusterAddSlots(IntStream.rangeClosed(range[0], range[1]).toArray()));
    }
    withNode(
        ports.get(0),
        deadline,
        sync -> {
          sync.clusterMeet("127.0.0.1", ports.get(1));
          return sync.clusterMeet("127.0.0.1", ports.get(2));
        });
    for (int port : ports) {
      awaitOk(port, deadline);
    }
  }

  private interface NodeCall {
    String apply(RedisCommands<String, String> sync);
  }

  private static String withNode(int port, Instant deadline, NodeCall call) {
    RuntimeException last = null;
    while (Instant.now().isBefore(deadline)) {
      RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
      try (StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8)) {
        return call.apply(c.sync());
      } catch (RuntimeException e) {
        last = e;
        pause();
      } finally {
        client.shutdown();
      }
    }
    throw new IllegalStateException("redis node on port " + port + " did not answer", last);
  }

  private static void awaitOk(int port, Instant deadline) {
    while (Instant.now().isBefore(deadline)) {
      String info = withNode(port, deadline, RedisCommands::clusterInfo);
      if (info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:3")) {
        return;
      }
      pause();
    }
    throw new IllegalStateException(
        "cluster node " + port + ": got no cluster_state:ok before the deadline, want ok");
  }

  private static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while forming the cluster", e);
    }
  }

  /** Seed URIs of all three masters. */
  public List<String> uris() {
    return ports.stream().map(p -> "redis://127.0.0.1:" + p).toList();
  }

  /** The masters' ports, in slot order (node i serves the i-th third of the slots). */
  public List<Integer> ports() {
    return List.copyOf(ports);
  }

  @Override
  public void close() {
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("deleting " + dir, e);
    }
  }
}
