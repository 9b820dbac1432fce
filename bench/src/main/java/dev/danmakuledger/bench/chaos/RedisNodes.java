package dev.danmakuledger.bench.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

/**
 * The two redis-servers of a chaos run, which the harness owns: a primary, which the sync servers
 * reach through a TCP proxy (the stand-in for the virtual IP or Sentinel-aware address a deployment
 * points its servers at), and a replica ({@code --replicaof} the primary). The Redis faults act on
 * them: restart empty, restart from an older RDB snapshot, and failover to a replica that is
 * behind. Roles swap at a failover: the old primary comes back as a replica of the new one. Neither
 * node saves on its own ({@code --save ""}); snapshots are taken with {@code BGSAVE}.
 */
final class RedisNodes {
  private static final String RDB = RedisBinary.RDB;

  /** One redis-server: its port and directory stay, its command line changes with its role. */
  private static final class Node {
    final int port;
    final Path dir;
    Child child;

    Node(int port, Path dir) {
      this.port = port;
      this.dir = dir;
    }
  }

  private final Path root;
  private final Path binary;
  private final Node[] nodes;
  private int primary;
  private int snapshots;

  RedisNodes(Path root, int primaryPort, int replicaPort) throws IOException {
    this.root = root;
    this.binary = RedisBinary.find();
    this.nodes =
        new Node[] {
          new Node(primaryPort, root.resolve("redis-a")),
          new Node(replicaPort, root.resolve("redis-b"))
        };
  }

  /**
   * Starts the primary, then the replica, both empty (an RDB file an earlier start left is
   * removed), and waits until the replica's link is up. When that fails, both are stopped.
   */
  void start() throws IOException, InterruptedException {
    for (Node n : nodes) {
      Files.deleteIfExists(n.dir.resolve(RDB));
    }
    try {
      startNode(nodes[0], 0);
      startNode(nodes[1], nodes[0].port);
      awaitLinkUp(Duration.ofSeconds(30));
    } catch (IOException e) {
      stop();
      throw e;
    }
  }

  int primaryPort() {
    return nodes[primary].port;
  }

  int replicaPort() {
    return nodes[1 - primary].port;
  }

  /** SIGKILL the primary and start it again with no data at all (no RDB file to load). */
  void restartPrimaryEmpty(long downMillis) throws IOException, InterruptedException {
    Node n = nodes[primary];
    n.child.kill();
    Files.deleteIfExists(n.dir.resolve(RDB));
    Thread.sleep(downMillis);
    startNode(n, 0);
  }

  /**
   * Takes a snapshot of the primary now: {@code BGSAVE}, waits for it to finish and copies the RDB
   * file aside.
   *
   * @return the copy
   */
  Path snapshot() throws IOException, InterruptedException {
    Node n = nodes[primary];
    RedisAdmin.bgsave(n.port);
    Path copy = root.resolve("redis-snapshot-" + (++snapshots) + ".rdb");
    Files.copy(n.dir.resolve(RDB), copy, StandardCopyOption.REPLACE_EXISTING);
    return copy;
  }

  /** SIGKILL the primary and start it again from {@code rdb}, an older snapshot. */
  void restartPrimaryFrom(Path rdb, long downMillis) throws IOException, InterruptedException {
    Node n = nodes[primary];
    n.child.kill();
    Files.copy(rdb, n.dir.resolve(RDB), StandardCopyOption.REPLACE_EXISTING);
    Thread.sleep(downMillis);
    startNode(n, 0);
  }

  /**
   * Cuts the replica off the replication stream ({@code REPLICAOF NO ONE}: it keeps the data set it
   * has and stops applying the primary's writes), as a partition between the two would.
   *
   * @return the primary's replication offset at that moment
   */
  long detachReplica() throws IOException {
    RedisAdmin.call(replicaPort(), "REPLICAOF", "NO", "ONE");
    return replicationOffset(primaryPort());
  }

  /** The primary's replication offset: bytes of write stream produced so far. */
  long replicationOffset(int port) throws IOException {
    return Long.parseLong(
        RedisAdmin.infoField(RedisAdmin.info(port, "replication"), "master_repl_offset"));
  }

  /**
   * SIGKILL the primary and promote the replica ({@code REPLICAOF NO ONE}); the old primary comes
   * back empty as a replica of the new one.
   *
   * @return the new primary's port
   */
  int failover() throws IOException, InterruptedException {
    Node old = nodes[primary];
    old.child.kill();
    primary = 1 - primary;
    RedisAdmin.call(nodes[primary].port, "REPLICAOF", "NO", "ONE");
    Files.deleteIfExists(old.dir.resolve(RDB));
    startNode(old, nodes[primary].port);
    return nodes[primary].port;
  }

  private void startNode(Node n, int replicaOf) throws IOException, InterruptedException {
    Files.createDirectories(n.dir);
    List<String> cmd =
        replicaOf > 0
            ? RedisBinary.command(
                binary, n.port, n.dir, "--replicaof", "127.0.0.1", Integer.toString(replicaOf))
            : RedisBinary.command(binary, n.port, n.dir);
    n.child = new Child("redis:" + n.port, cmd, root.resolve("redis-" + n.port + ".log"));
    n.child.start();
    RedisAdmin.awaitServing(n.child, n.port, Duration.ofSeconds(20));
  }

  private void awaitLinkUp(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String info = RedisAdmin.info(replicaPort(), "replication");
      if ("up".equals(RedisAdmin.infoField(info, "master_link_status"))) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IOException(
        "redis replica :"
            + replicaPort()
            + " never linked to its primary :"
            + primaryPort()
            + "; the replica's log ends:\n"
            + nodes[1 - primary].child.logTail(10)
            + "\nthe primary's log ends:\n"
            + nodes[primary].child.logTail(10));
  }

  /** SIGKILL both nodes. */
  void stop() throws InterruptedException {
    for (Node n : nodes) {
      if (n.child != null) {
        n.child.kill();
      }
    }
  }
}
