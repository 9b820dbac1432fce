package dev.danmakuledger.bench.chaos;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Injects the faults of {@link FaultKind} into the processes of a chaos run at random moments, in
 * shuffled rounds so that a short run still meets each kind; the first round always completes, even
 * past the duration. The proxy's random drops and lost responses run throughout and are counted at
 * the end.
 */
final class FaultInjector {
  private final ChaosProcesses processes;
  private final Random random;
  private final PrintStream log;
  private final Map<FaultKind, Long> injected = new LinkedHashMap<>();

  FaultInjector(ChaosProcesses processes, Random random, PrintStream log) {
    this.processes = processes;
    this.random = random;
    this.log = log;
    for (FaultKind k : FaultKind.values()) {
      injected.put(k, 0L);
    }
  }

  /** Injects faults for {@code duration}, then stops the proxy's faults. */
  void run(Duration duration) throws Exception {
    long end = System.nanoTime() + duration.toNanos();
    List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.values()));
    kinds.remove(FaultKind.PROXY_DROPPED_CONNECTION);
    kinds.remove(FaultKind.PROXY_LOST_RESPONSE);
    if (processes.mariadb() == null) {
      kinds.remove(FaultKind.MARIADB_RESTART);
    }
    List<FaultKind> cycle = new ArrayList<>();
    boolean firstRoundDone = false;
    while (true) {
      long gapMillis = 2_000 + random.nextInt(6_000);
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
      apply(k);
      injected.merge(k, 1L, Long::sum);
    }
    FaultProxy proxy = processes.proxy();
    proxy.setRates(0, 0);
    proxy.setDelayMillis(0);
    injected.put(
        FaultKind.PROXY_DROPPED_CONNECTION, proxy.injected().get(FaultProxy.Fault.DROP_CONNECTION));
    injected.put(
        FaultKind.PROXY_LOST_RESPONSE, proxy.injected().get(FaultProxy.Fault.LOSE_RESPONSE));
  }

  /** Faults injected, by the label the report prints. */
  Map<String, Long> byName() {
    Map<String, Long> out = new LinkedHashMap<>();
    injected.forEach((k, v) -> out.put(k.label, v));
    return out;
  }

  private void apply(FaultKind k) throws Exception {
    switch (k) {
      case SERVER_SIGKILL -> {
        processes.server().kill();
        log.println("chaos: SIGKILL sync-server");
        Thread.sleep(random.nextInt(2_000));
        processes.server().start();
        processes.waitReady(Duration.ofSeconds(90));
      }
      case AGENT_SIGKILL -> {
        List<Child> agents = processes.agents();
        int a = random.nextInt(agents.size());
        agents.get(a).kill();
        log.println("chaos: SIGKILL " + agents.get(a).name() + " (mid-capture)");
        Thread.sleep(random.nextInt(2_000));
        agents.get(a).start();
      }
      case REDIS_RESTART_EMPTY -> {
        processes.redis().kill();
        log.println("chaos: SIGKILL redis-server; restarting it empty");
        Thread.sleep(random.nextInt(1_500));
        processes.redis().start();
        processes.waitForRedis();
      }
      case MARIADB_RESTART -> {
        processes.mariadb().process().kill();
        log.println("chaos: SIGKILL mariadbd; restarting it");
        Thread.sleep(random.nextInt(1_500));
        processes.mariadb().process().start();
        processes.waitForMariaDb();
      }
      case SERVER_PAUSE -> {
        long ms = 1_000 + random.nextInt(3_000);
        log.println("chaos: SIGSTOP sync-server for " + ms + " ms");
        processes.server().signal(true);
        try {
          Thread.sleep(ms);
        } finally {
          processes.server().signal(false);
        }
      }
      case PROXY_SLOW -> {
        long ms = 50 + random.nextInt(250);
        log.println("chaos: proxy delays every chunk by " + ms + " ms for 5 s");
        processes.proxy().setDelayMillis(ms);
        Thread.sleep(5_000);
        processes.proxy().setDelayMillis(0);
      }
      case PROXY_CUT_ALL -> {
        log.println("chaos: proxy cuts every open connection");
        processes.proxy().cutAll();
      }
      default -> throw new IllegalStateException("fault " + k + " is not injected on a schedule");
    }
  }
}
