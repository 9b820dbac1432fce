package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.lua.RedisKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The Redis faults of a chaos run (docs/operations.md "Outages the chaos run rehearses"): Redis
 * forgets everything, comes back from an older snapshot, fails over to a replica that is behind, or
 * a room counter goes back. In each case Redis holds less than SQL, which is the authority
 * (docs/architecture.md §5): keys it forgot must still be refused as duplicates by SQL, and a
 * counter at or below SQL's high-water mark must be re-seeded before it hands out a number already
 * used.
 */
final class RedisFaults {
  private final ChaosProcesses processes;
  private final List<String> rooms;
  private final Random random;
  private final PrintStream log;
  private final Map<String, Long> measures;

  /**
   * @param measures where the faults add what they measured (the report's totals)
   */
  RedisFaults(
      ChaosProcesses processes,
      List<String> rooms,
      Random random,
      PrintStream log,
      Map<String, Long> measures) {
    this.processes = processes;
    this.rooms = List.copyOf(rooms);
    this.random = random;
    this.log = log;
    this.measures = measures;
  }

  void restartEmpty() throws IOException, InterruptedException {
    RedisClusterNodes cluster = processes.redisCluster();
    if (cluster != null) {
      int port = pickMaster(cluster);
      log.println("chaos: SIGKILL redis cluster master :" + port + "; restarting it empty");
      // back within the node timeout, so it is still the master of its slots (its replica
      // then copies the empty data set)
      cluster.restartEmpty(port, random.nextInt(1_000));
      cluster.awaitHealthy(Duration.ofSeconds(60));
      return;
    }
    log.println("chaos: SIGKILL redis primary; restarting it empty");
    processes.redis().restartPrimaryEmpty(random.nextInt(1_500));
  }

  /** Snapshot now, let writes go on, then restart Redis from the snapshot: it forgets them. */
  void oldSnapshot() throws IOException, InterruptedException {
    RedisClusterNodes cluster = processes.redisCluster();
    if (cluster != null) {
      int port = pickMaster(cluster);
      Path rdb = cluster.snapshot(port);
      long before = RedisClusterNodes.offset(port);
      long ms = 2_000 + random.nextInt(3_000);
      Thread.sleep(ms);
      long lost = RedisClusterNodes.offset(port) - before;
      log.println(
          "chaos: SIGKILL redis cluster master :"
              + port
              + "; restarting it from the RDB snapshot of "
              + ms
              + " ms ago ("
              + lost
              + " bytes of writes since)");
      cluster.restartFrom(port, rdb, random.nextInt(1_000));
      cluster.awaitHealthy(Duration.ofSeconds(60));
      measures.merge("Redis write bytes lost to old snapshots", lost, Long::sum);
      return;
    }
    RedisNodes redis = processes.redis();
    Path rdb = redis.snapshot();
    long before = redis.replicationOffset(redis.primaryPort());
    long ms = 2_000 + random.nextInt(3_000);
    Thread.sleep(ms);
    long lost = redis.replicationOffset(redis.primaryPort()) - before;
    log.println(
        "chaos: SIGKILL redis primary; restarting it from the RDB snapshot of "
            + ms
            + " ms ago ("
            + lost
            + " bytes of writes since)");
    redis.restartPrimaryFrom(rdb, random.nextInt(1_000));
    measures.merge("Redis write bytes lost to old snapshots", lost, Long::sum);
  }

  /**
   * Cuts the replica off, lets writes go on at the primary, kills the primary and promotes the
   * replica, then points the servers' Redis address at it (as Sentinel or a moved virtual IP
   * would): the new primary lacks the last seconds of keys and counter increments.
   *
   * @throws IllegalStateException when no write reached the primary meanwhile (the replica would
   *     not be behind, so the fault would not be what it claims)
   */
  void failoverToLaggingReplica() throws IOException, InterruptedException {
    RedisNodes redis = processes.redis();
    long at = redis.detachReplica();
    long ms = 1_500 + random.nextInt(2_500);
    Thread.sleep(ms);
    long behind = redis.replicationOffset(redis.primaryPort()) - at;
    for (int i = 0; behind <= 0 && i < 50; i++) {
      Thread.sleep(200);
      behind = redis.replicationOffset(redis.primaryPort()) - at;
    }
    if (behind <= 0) {
      throw new IllegalStateException(
          "failover: got a replica 0 bytes behind after " + ms + " ms + 10 s, want > 0");
    }
    int port = redis.failover();
    processes.repointRedis(port);
    log.println(
        "chaos: SIGKILL redis primary; promoted its replica, "
            + behind
            + " bytes of writes behind, on :"
            + port);
    measures.merge("Redis write bytes the promoted replicas missed", behind, Long::sum);
  }

  /**
   * SIGKILL a Redis Cluster master and let the cluster fail over by itself: its replica is promoted
   * once the master was unreachable for the node timeout; the old master then comes back and
   * rejoins as a replica of the new one. Whatever the replica had not applied yet is lost.
   */
  void killClusterMaster() throws IOException, InterruptedException {
    RedisClusterNodes cluster = processes.redisCluster();
    List<int[]> shards = cluster.shards();
    if (shards.isEmpty()) {
      throw new IllegalStateException("master kill: got no master with a live replica, want one");
    }
    int[] shard = shards.get(random.nextInt(shards.size()));
    long masterAt = RedisClusterNodes.offset(shard[0]);
    long replicaAt = RedisClusterNodes.offset(shard[1]);
    cluster.kill(shard[0]);
    log.println(
        "chaos: SIGKILL redis cluster master :"
            + shard[0]
            + "; waiting for the cluster to promote its replica :"
            + shard[1]);
    cluster.awaitMaster(shard[1], Duration.ofSeconds(60));
    cluster.restart(shard[0]);
    cluster.awaitHealthy(Duration.ofSeconds(60));
    log.println(
        "chaos: redis cluster replica :"
            + shard[1]
            + " promoted; the old master :"
            + shard[0]
            + " rejoined as its replica");
    measures.merge(
        "Redis write bytes the promoted replicas missed",
        Math.max(0, masterAt - replicaAt),
        Long::sum);
  }

  private int pickMaster(RedisClusterNodes cluster) throws IOException {
    List<int[]> shards = cluster.shards();
    if (shards.isEmpty()) {
      throw new IllegalStateException("redis fault: got no master with a live replica, want one");
    }
    return shards.get(random.nextInt(shards.size()))[0];
  }

  /**
   * Sets a room's counter (its field in its bucket's counters hash, docs/lua-scripts.md "Key
   * layout") to a lower value than it holds, in a room that has one.
   */
  void setCounterBack() throws IOException, InterruptedException {
    RedisClusterNodes cluster = processes.redisCluster();
    for (int attempt = 0; attempt < 50; attempt++) {
      List<String> order = new ArrayList<>(rooms);
      Collections.shuffle(order, random);
      for (String room : order) {
        String counters = RedisKeys.counters(room);
        String field = RedisKeys.field(room);
        Object v = counterCall(cluster, "HGET", counters, field);
        long now = v == null ? 0 : Long.parseLong(v.toString());
        if (now < 1) {
          continue;
        }
        long back = 1 + random.nextInt((int) Math.min(now, 40));
        counterCall(cluster, "HSET", counters, field, Long.toString(now - back));
        log.println(
            "chaos: HSET " + counters + " " + field + " " + (now - back) + " (was " + now + ")");
        measures.merge("room numbers a counter was set back by", back, Long::sum);
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        "counter set back: got no room counter above 0 in Redis within 10 s, want one");
  }

  private Object counterCall(RedisClusterNodes cluster, String... args) throws IOException {
    return cluster != null
        ? cluster.callForKey(args)
        : RedisAdmin.call(processes.redis().primaryPort(), args);
  }
}
