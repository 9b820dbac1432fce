package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.protocol.wire.LogState;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Injects the faults of {@link FaultKind} into the processes of a chaos run at random moments, in
 * shuffled rounds so that a short run still meets each kind; the first round always completes, even
 * past the duration. The proxy's random drops and lost responses run throughout and are counted at
 * the end. A fault that cannot be carried out as described fails the run (an exception) or, when it
 * found nothing to act on, is not counted — the verdict then reports it as never injected.
 */
final class FaultInjector {
  private final ChaosProcesses processes;
  private final Random random;
  private final PrintStream log;
  private final Set<FaultKind> scheduled;
  private final String clonePrefix;
  private final RedisFaults redis;
  private final SqlSessionKiller sql;
  private final KafkaFaults kafka;
  private final Map<FaultKind, Long> injected = new LinkedHashMap<>();
  private final Map<String, Long> measures = new LinkedHashMap<>();
  private int clones;

  /**
   * @param scheduled the kinds to inject on the schedule (not the proxy's random ones)
   * @param rooms the run's rooms (the counter fault picks one)
   * @param clonePrefix device id prefix of cloned devices
   * @param sqlUrl the servers' MariaDB URL, or null (no SQL session faults)
   */
  FaultInjector(
      ChaosProcesses processes,
      Random random,
      PrintStream log,
      Set<FaultKind> scheduled,
      List<String> rooms,
      String clonePrefix,
      String sqlUrl) {
    this.processes = processes;
    this.random = random;
    this.log = log;
    this.scheduled = Set.copyOf(scheduled);
    this.clonePrefix = clonePrefix;
    this.redis = new RedisFaults(processes, rooms, random, log, measures);
    this.sql = sqlUrl == null ? null : new SqlSessionKiller(sqlUrl, log, measures);
    this.kafka =
        processes.kafka() == null ? null : new KafkaFaults(processes, random, log, measures);
    for (FaultKind k : FaultKind.values()) {
      injected.put(k, 0L);
      if (k.random() && scheduled.contains(k)) {
        throw new IllegalArgumentException("scheduled faults: got " + k + ", want no random one");
      }
    }
  }

  /** Injects faults for {@code duration}, then stops the proxy's faults. */
  void run(Duration duration) throws Exception {
    long end = System.nanoTime() + duration.toNanos();
    List<FaultKind> kinds = new ArrayList<>();
    for (FaultKind k : FaultKind.values()) {
      if (scheduled.contains(k)) {
        kinds.add(k);
      }
    }
    List<FaultKind> cycle = new ArrayList<>();
    boolean firstRoundDone = kinds.isEmpty();
    while (true) {
      long gapMillis = 1_500 + random.nextInt(3_500);
      long left = (end - System.nanoTime()) / 1_000_000;
      if (left <= gapMillis && firstRoundDone) {
        Thread.sleep(Math.max(0, left));
        break;
      }
      Thread.sleep(firstRoundDone ? gapMillis : Math.min(gapMillis, Math.max(500, left)));
      if (cycle.isEmpty()) {
        cycle.addAll(kinds);
        Collections.shuffle(cycle, random);
      }
      FaultKind k = cycle.remove(cycle.size() - 1);
      firstRoundDone |= cycle.isEmpty();
      if (apply(k)) {
        injected.merge(k, 1L, Long::sum);
      }
    }
    FaultProxy proxy = processes.proxy();
    proxy.setRates(0, 0);
    proxy.setHedgeRate(0);
    proxy.setDelayMillis(0);
    injected.put(
        FaultKind.PROXY_DROPPED_CONNECTION, proxy.injected().get(FaultProxy.Fault.DROP_CONNECTION));
    injected.put(
        FaultKind.PROXY_LOST_RESPONSE, proxy.injected().get(FaultProxy.Fault.LOSE_RESPONSE));
  }

  /** Faults injected, by kind. */
  Map<FaultKind, Long> injected() {
    return Collections.unmodifiableMap(injected);
  }

  /** What the faults measured as they went (bytes lost, sessions killed, ...), for the totals. */
  Map<String, Long> measures() {
    return Collections.unmodifiableMap(measures);
  }

  /** Injects {@code k}; false when it found nothing to act on (then it is not counted). */
  private boolean apply(FaultKind k) throws Exception {
    switch (k) {
      case SERVER_SIGKILL -> {
        int i = random.nextInt(processes.servers().size());
        Child server = processes.servers().get(i);
        server.kill();
        log.println("chaos: SIGKILL " + server.name());
        Thread.sleep(random.nextInt(2_000));
        server.start();
        processes.waitReady(i, Duration.ofSeconds(90));
      }
      case SUBSCRIBED_SERVER_SIGKILL -> {
        return killSubscribedServer();
      }
      case SUBSCRIBER_STALL -> {
        List<StreamSubscriber> subs = processes.subscribers();
        StreamSubscriber s = subs.get(random.nextInt(subs.size()));
        log.println("chaos: stream subscriber " + s.name() + " reads nothing for 10 s");
        s.stall(10_000);
        Thread.sleep(10_000);
      }
      case REDIS_MASTER_KILL -> redis.killClusterMaster();
      case AGENT_SIGKILL -> {
        List<Child> agents = processes.agents();
        Child a = agents.get(random.nextInt(agents.size()));
        a.kill();
        log.println("chaos: SIGKILL " + a.name() + " (mid-capture)");
        Thread.sleep(random.nextInt(2_000));
        a.start();
      }
      case REDIS_RESTART_EMPTY -> redis.restartEmpty();
      case REDIS_OLD_SNAPSHOT -> redis.oldSnapshot();
      case REDIS_FAILOVER_LAGGING -> redis.failoverToLaggingReplica();
      case ROOM_COUNTER_SET_BACK -> redis.setCounterBack();
      case MARIADB_RESTART -> {
        processes.mariadb().process().kill();
        log.println("chaos: SIGKILL mariadbd; restarting it");
        Thread.sleep(random.nextInt(1_500));
        processes.mariadb().process().start();
        processes.waitForMariaDb();
      }
      case SQL_CONNECTION_KILL -> {
        return sql.killMidTransaction(10_000) > 0;
      }
      case TWO_INSTANCES -> {
        return hedge();
      }
      case CLONED_DEVICE -> cloneDevice();
      case SERVER_PAUSE -> {
        long ms = 1_000 + random.nextInt(3_000);
        Child server = processes.servers().get(random.nextInt(processes.servers().size()));
        log.println("chaos: SIGSTOP " + server.name() + " for " + ms + " ms");
        server.signal(true);
        try {
          Thread.sleep(ms);
        } finally {
          server.signal(false);
        }
      }
      case PROXY_SLOW -> {
        long ms = 50 + random.nextInt(250);
        log.println("chaos: proxy delays every chunk by " + ms + " ms for 5 s");
        processes.proxy().setDelayMillis(ms);
        Thread.sleep(5_000);
        processes.proxy().setDelayMillis(0);
      }
      case KAFKA_BROKER_SIGKILL -> kafka.killBroker();
      case RELAY_SIGKILL_MID_TRANSACTION -> {
        return kafka.killRelayMidTransaction();
      }
      case KAFKA_CUT -> kafka.cut();
      case PROXY_CUT_ALL -> {
        log.println("chaos: proxy cuts every open connection");
        processes.proxy().cutAll();
      }
      default -> throw new IllegalStateException("fault " + k + " is not injected on a schedule");
    }
    return true;
  }

  /**
   * SIGKILL a server that has stream subscribers attached right now, and restart it after 0–2 s:
   * its subscribers reconnect (to it once it is back, or to another instance) with {@code
   * Last-Event-ID}. False when no server had a subscriber attached (then it is not counted).
   */
  private boolean killSubscribedServer() throws Exception {
    List<Integer> candidates = new ArrayList<>();
    for (int i = 0; i < processes.servers().size(); i++) {
      for (StreamSubscriber s : processes.subscribers()) {
        if (s.connectedTo() == i) {
          candidates.add(i);
          break;
        }
      }
    }
    if (candidates.isEmpty()) {
      log.println("chaos: no sync server has a stream subscriber attached; nothing to kill");
      return false;
    }
    int i = candidates.get(random.nextInt(candidates.size()));
    long attached = processes.subscribers().stream().filter(s -> s.connectedTo() == i).count();
    Child server = processes.servers().get(i);
    server.kill();
    log.println("chaos: SIGKILL " + server.name() + " with " + attached + " stream subscribers");
    measures.merge("stream subscribers attached to a killed instance", attached, Long::sum);
    Thread.sleep(random.nextInt(2_000));
    server.start();
    processes.waitReady(i, Duration.ofSeconds(90));
    return true;
  }

  /** For 4 s every request goes to both servers at once; true if any request did. */
  private boolean hedge() throws InterruptedException {
    FaultProxy proxy = processes.proxy();
    long before = proxy.injected().get(FaultProxy.Fault.HEDGE);
    log.println("chaos: proxy sends every request to both sync servers at once for 4 s");
    proxy.setHedgeRate(1);
    try {
      Thread.sleep(4_000);
    } finally {
      proxy.setHedgeRate(0);
    }
    long hedged = proxy.injected().get(FaultProxy.Fault.HEDGE) - before;
    measures.merge("requests sent to both servers at once", hedged, Long::sum);
    return hedged > 0;
  }

  /**
   * A device of its own syncs until the server verified part of its log; then it is stopped, its
   * data directory copied, and the original and the copy both run on: the server must see a fork.
   */
  private void cloneDevice() throws Exception {
    String id = clonePrefix + (clones++);
    Child source = processes.startCloneSource(id, random.nextLong());
    LedgerClient direct = processes.direct();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try {
        LedgerClient.Reply<LogState> s = direct.log(id);
        if (s.ok() && s.body().verifiedSize() > 0) {
          break;
        }
      } catch (IOException e) {
        // the server is restarting: ask again
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "cloned device " + id + ": got no verified record within 60 s, want its first sync");
      }
      Thread.sleep(200);
    }
    Thread.sleep(random.nextInt(1_000));
    source.kill();
    long copied = ackedLines(processes.cloneSourceDir(id));
    ChaosProcesses.ClonePair pair = processes.cloneDevice(id, source, random.nextLong());
    // a fork needs both copies to append records of their own past the copy: wait until they did
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (ackedLines(pair.original()) <= copied || ackedLines(pair.copy()) <= copied) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException(
            "cloned device " + id + ": a copy captured nothing within 30 s, want both to diverge");
      }
      Thread.sleep(100);
    }
    log.println(
        "chaos: copied the data dir of "
            + id
            + " at "
            + copied
            + " captures; original and clone both capture and sync");
  }

  /** Lines (acknowledged captures) in a data directory's acked.log. */
  private static long ackedLines(Path dir) throws IOException {
    Path file = dir.resolve(ChaosAgent.ACKED_LOG);
    if (!Files.exists(file)) {
      return 0;
    }
    long n = 0;
    for (byte c : Files.readAllBytes(file)) {
      if (c == '\n') {
        n++;
      }
    }
    return n;
  }
}
