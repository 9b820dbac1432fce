package dev.danmakuledger.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.lua.LiveKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.TransactionState;

/**
 * The faults of the Kafka relay in a chaos run (docs/kafka.md, "Chaos run"): a broker killed and
 * started again, the relay's instance killed while it has a Kafka transaction open, and the relay
 * cut off from every broker for a while.
 */
final class KafkaFaults {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long the process is frozen before the brokers are asked: its last bytes arrive. */
  private static final long FROZEN_MILLIS = 300;

  private final ChaosProcesses processes;
  private final ChaosKafka kafka;
  private final Random random;
  private final PrintStream log;
  private final Map<String, Long> measures;

  KafkaFaults(
      ChaosProcesses processes, Random random, PrintStream log, Map<String, Long> measures) {
    this.processes = processes;
    this.kafka = processes.kafka();
    this.random = random;
    this.log = log;
    this.measures = measures;
  }

  /** SIGKILL one broker, start it again after 0–2 s and wait until the cluster has it back. */
  void killBroker() throws InterruptedException {
    int i = random.nextInt(ChaosKafka.BROKERS);
    kafka.killBroker(i);
    log.println("chaos: SIGKILL Kafka broker " + i);
    Thread.sleep(random.nextInt(2_000));
    long started = System.nanoTime();
    kafka.restartBroker(i);
    log.printf(
        "chaos: Kafka broker %d back after %d ms%n", i, (System.nanoTime() - started) / 1_000_000);
  }

  /** Cuts the relay off from every broker for 4–15 s (longer than a request's timeout). */
  void cut() throws InterruptedException {
    long ms = 4_000 + random.nextInt(11_000);
    log.println("chaos: relay cut off from every Kafka broker for " + ms + " ms");
    kafka.partition(true);
    try {
      Thread.sleep(ms);
    } finally {
      kafka.partition(false);
    }
    measures.merge("ms the relay was cut off from Kafka", ms, Long::sum);
  }

  /**
   * SIGKILL a sync server while its relay has a Kafka transaction open, and start it again after
   * 0–2 s: a server that holds a shard's lease is frozen (SIGSTOP), and once its last bytes had
   * time to arrive the brokers are asked for its shards' transactions; when one is open it is
   * killed frozen, so the transaction can neither commit nor abort, else it runs on and another try
   * follows. False when no try found one open within 60 s (then it is not counted).
   */
  boolean killRelayMidTransaction() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      Map<Integer, List<Integer>> owners;
      try {
        owners = shardOwners();
      } catch (IOException e) {
        // Redis is being restarted or failed over by another fault: ask again
        Thread.sleep(500);
        continue;
      }
      if (owners.isEmpty()) {
        Thread.sleep(500);
        continue;
      }
      List<Integer> candidates = new ArrayList<>(owners.keySet());
      int i = candidates.get(random.nextInt(candidates.size()));
      Child server = processes.servers().get(i);
      if (!server.alive()) {
        Thread.sleep(200);
        continue;
      }
      server.signal(true);
      List<Integer> open = new ArrayList<>();
      try {
        Thread.sleep(FROZEN_MILLIS);
        kafka
            .transactions(owners.get(i))
            .forEach(
                (shard, state) -> {
                  if (state == TransactionState.ONGOING) {
                    open.add(shard);
                  }
                });
      } catch (ExecutionException | TimeoutException e) {
        log.println("chaos: cannot ask the brokers for the relay's transactions: " + e);
      } finally {
        if (open.isEmpty()) {
          server.signal(false);
        }
      }
      if (open.isEmpty()) {
        Thread.sleep(random.nextInt(200));
        continue;
      }
      server.kill();
      log.println(
          "chaos: SIGKILL "
              + server.name()
              + " with the Kafka transactions of shards "
              + open
              + " open");
      measures.merge(
          "relay transactions open when their instance was killed", (long) open.size(), Long::sum);
      Thread.sleep(random.nextInt(2_000));
      server.start();
      processes.waitReady(i, Duration.ofSeconds(90));
      return true;
    }
    log.println("chaos: no relay transaction seen open within 60 s; nothing killed");
    return false;
  }

  /**
   * Server index to the shards whose lease names that server's running process: the lease holds an
   * instance id, and the instance registry maps each id to the address it serves on; of the ids on
   * one address (one per start) the newest start is the running process.
   */
  private Map<Integer, List<Integer>> shardOwners() throws IOException {
    Map<Integer, String> newest = new HashMap<>();
    Map<Integer, String> newestStart = new HashMap<>();
    List<?> registry = (List<?>) redis("HGETALL", LiveKeys.instances());
    for (int f = 0; registry != null && f + 1 < registry.size(); f += 2) {
      JsonNode entry = JSON.readTree(String.valueOf(registry.get(f + 1)));
      int port = URI.create(entry.path("address").asText("http://x:0")).getPort();
      int server = processes.serverPorts().indexOf(port);
      String started = entry.path("startedAt").asText("");
      if (server >= 0 && started.compareTo(newestStart.getOrDefault(server, "")) > 0) {
        newest.put(server, String.valueOf(registry.get(f)));
        newestStart.put(server, started);
      }
    }
    Map<Integer, List<Integer>> out = new TreeMap<>();
    for (int shard = 0; shard < kafka.relay().shards(); shard++) {
      Object holder = redis("GET", kafka.relay().leaseKey(shard));
      for (Map.Entry<Integer, String> e : newest.entrySet()) {
        if (e.getValue().equals(holder)) {
          out.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(shard);
        }
      }
    }
    return out;
  }

  private Object redis(String... args) throws IOException {
    RedisClusterNodes cluster = processes.redisCluster();
    return cluster != null
        ? cluster.callForKey(args)
        : RedisAdmin.call(processes.redis().primaryPort(), args);
  }
}
