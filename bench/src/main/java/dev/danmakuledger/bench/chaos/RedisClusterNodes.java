package dev.danmakuledger.bench.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Redis Cluster the chaos run owns (https://redis.io/docs/management/scaling/): six redis-servers
 * with {@code cluster-enabled yes}, made three masters with one replica each by {@code redis-cli
 * --cluster create … --cluster-replicas 1 --cluster-yes}. Each node keeps its directory (its RDB
 * file and its {@code nodes.conf}, the node's identity in the cluster) across restarts, so a node
 * that comes back rejoins as itself — as the master of its slots when it was away for less than the
 * node timeout, else as a replica of the node that took over. No node saves on its own ({@code
 * --save ""}); snapshots are taken with {@code BGSAVE}.
 */
final class RedisClusterNodes {
  /** A master is failed over when it is unreachable for this long (cluster-node-timeout). */
  static final Duration NODE_TIMEOUT = Duration.ofSeconds(3);

  private static final String RDB = RedisBinary.RDB;
  private static final Pattern MOVED = Pattern.compile("MOVED \\d+ [^:]+:(\\d+)");

  /** One node as {@code CLUSTER NODES} describes it. */
  record NodeInfo(String id, int port, boolean master, boolean failed, String masterId) {}

  private final Path root;
  private final Path binary;
  private final Map<Integer, Child> nodes = new LinkedHashMap<>();
  private int snapshots;

  RedisClusterNodes(Path root, List<Integer> ports) throws IOException {
    if (ports.size() != 6) {
      throw new IllegalArgumentException("cluster ports: got " + ports.size() + ", want 6");
    }
    this.root = root;
    this.binary = RedisBinary.find();
    for (int p : ports) {
      nodes.put(p, null);
    }
  }

  /**
   * Starts the six nodes, creates the cluster and waits until every node says it is ok. When that
   * fails, every node started is stopped.
   */
  void start() throws IOException, InterruptedException {
    try {
      create();
    } catch (IOException e) {
      stop();
      throw e;
    }
  }

  private void create() throws IOException, InterruptedException {
    for (int port : new ArrayList<>(nodes.keySet())) {
      startNode(port);
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.resolveSibling("redis-cli").toString());
    cmd.add("--cluster");
    cmd.add("create");
    for (int port : nodes.keySet()) {
      cmd.add("127.0.0.1:" + port);
    }
    cmd.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    Path out = root.resolve("redis-cluster-create.log");
    Process create =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(out.toFile()))
            .start();
    if (!create.waitFor(60, TimeUnit.SECONDS) || create.exitValue() != 0) {
      create.destroyForcibly();
      throw new IOException(
          "redis-cli --cluster create failed: " + Files.readString(out, StandardCharsets.UTF_8));
    }
    awaitHealthy(Duration.ofSeconds(60));
  }

  /** Seed URIs for the sync servers' {@code --redis-cluster}: every node. */
  List<String> seeds() {
    List<String> out = new ArrayList<>();
    for (int port : nodes.keySet()) {
      out.add("redis://127.0.0.1:" + port);
    }
    return out;
  }

  List<Integer> ports() {
    return List.copyOf(nodes.keySet());
  }

  /** The cluster's view of its nodes, asked of the first node that answers. */
  List<NodeInfo> topology() throws IOException {
    IOException last = null;
    for (int port : nodes.keySet()) {
      try {
        return parseNodes(String.valueOf(RedisAdmin.call(port, "CLUSTER", "NODES")));
      } catch (IOException e) {
        last = e;
      }
    }
    throw new IOException("no cluster node answers CLUSTER NODES", last);
  }

  /** The live masters that have a live replica, as (master port, replica port) pairs. */
  List<int[]> shards() throws IOException {
    List<NodeInfo> all = topology();
    List<int[]> out = new ArrayList<>();
    for (NodeInfo m : all) {
      if (!m.master() || m.failed()) {
        continue;
      }
      for (NodeInfo r : all) {
        if (!r.master() && !r.failed() && m.id().equals(r.masterId())) {
          out.add(new int[] {m.port(), r.port()});
          break;
        }
      }
    }
    return out;
  }

  static List<NodeInfo> parseNodes(String text) {
    List<NodeInfo> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      String[] f = line.strip().split(" ");
      if (f.length < 8) {
        continue;
      }
      String addr = f[1];
      int colon = addr.lastIndexOf(':');
      int at = addr.indexOf('@');
      int port = Integer.parseInt(addr.substring(colon + 1, at < 0 ? addr.length() : at));
      String flags = f[2];
      out.add(
          new NodeInfo(
              f[0],
              port,
              flags.contains("master"),
              flags.contains("fail") || flags.contains("noaddr"),
              "-".equals(f[3]) ? null : f[3]));
    }
    return out;
  }

  /** Runs a single-key command on the master that serves {@code key}, following MOVED. */
  Object callForKey(String... args) throws IOException {
    List<Integer> order = new ArrayList<>(nodes.keySet());
    IOException last = null;
    for (int i = 0, port = order.get(0); i < 6; i++) {
      try {
        return RedisAdmin.call(port, args);
      } catch (IOException e) {
        last = e;
        Matcher m = MOVED.matcher(String.valueOf(e.getMessage()));
        port = m.find() ? Integer.parseInt(m.group(1)) : order.get((order.indexOf(port) + 1) % 6);
      }
    }
    throw new IOException("no cluster node ran " + String.join(" ", args), last);
  }

  /** SIGKILL node {@code port} and start it again without its data (its nodes.conf stays). */
  void restartEmpty(int port, long downMillis) throws IOException, InterruptedException {
    nodes.get(port).kill();
    Files.deleteIfExists(dir(port).resolve(RDB));
    Thread.sleep(downMillis);
    startNode(port);
  }

  /** {@code BGSAVE} on {@code port} and a copy of its RDB file; returns the copy. */
  Path snapshot(int port) throws IOException, InterruptedException {
    RedisAdmin.bgsave(port);
    Path copy = root.resolve("redis-cluster-snapshot-" + (++snapshots) + ".rdb");
    Files.copy(dir(port).resolve(RDB), copy, StandardCopyOption.REPLACE_EXISTING);
    return copy;
  }

  /** SIGKILL node {@code port} and start it again from {@code rdb}, an older snapshot. */
  void restartFrom(int port, Path rdb, long downMillis) throws IOException, InterruptedException {
    nodes.get(port).kill();
    Files.copy(rdb, dir(port).resolve(RDB), StandardCopyOption.REPLACE_EXISTING);
    Thread.sleep(downMillis);
    startNode(port);
  }

  /** SIGKILL only. */
  void kill(int port) throws InterruptedException {
    nodes.get(port).kill();
  }

  /** Starts node {@code port} again, as it was (same directory, same identity). */
  void restart(int port) throws IOException, InterruptedException {
    startNode(port);
  }

  /** Waits until {@code port} says it is a master (a replica promoted by the cluster). */
  void awaitMaster(int port, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if ("master".equals(RedisAdmin.infoField(RedisAdmin.info(port, "replication"), "role"))) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IOException("redis :" + port + " was not promoted within " + timeout);
  }

  /** Waits until every running node reports {@code cluster_state:ok}. */
  void awaitHealthy(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      boolean ok = true;
      for (int port : nodes.keySet()) {
        try {
          String info = String.valueOf(RedisAdmin.call(port, "CLUSTER", "INFO"));
          last = ":" + port + " " + RedisAdmin.infoField(info, "cluster_state");
          ok &= "ok".equals(RedisAdmin.infoField(info, "cluster_state"));
        } catch (IOException e) {
          last = ":" + port + " " + e.getMessage();
          ok = false;
        }
      }
      if (ok) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IOException("redis cluster not ok within " + timeout + " (" + last + ")");
  }

  /** The replication offset {@code port} has reached (a master's or a replica's). */
  static long offset(int port) throws IOException {
    String info = RedisAdmin.info(port, "replication");
    String own = RedisAdmin.infoField(info, "master_repl_offset");
    String applied = RedisAdmin.infoField(info, "slave_repl_offset");
    return Long.parseLong(applied != null ? applied : own);
  }

  private Path dir(int port) {
    return root.resolve("redis-cluster").resolve(Integer.toString(port));
  }

  private void startNode(int port) throws IOException, InterruptedException {
    Path dir = dir(port);
    Files.createDirectories(dir);
    List<String> cmd =
        RedisBinary.command(
            binary,
            port,
            dir,
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            Long.toString(NODE_TIMEOUT.toMillis()),
            // a replica that lost its master is promoted however long the link was down
            "--cluster-replica-validity-factor",
            "0");
    Child c = new Child("redis:" + port, cmd, root.resolve("redis-" + port + ".log"));
    nodes.put(port, c);
    c.start();
    RedisAdmin.awaitServing(c, port, Duration.ofSeconds(20));
  }

  /** SIGKILL every node. */
  void stop() throws InterruptedException {
    for (Child c : nodes.values()) {
      if (c != null) {
        c.kill();
      }
    }
  }
}
