package dev.danmakuledger.bench.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy that injects network faults (the chaos run, docs/benchmarks.md). In front of the sync
 * servers it is their load balancer: each accepted connection goes to one of the targets, chosen at
 * random, and it decides, with the configured probabilities, to pass it through, to drop it
 * (forward part of the first request, close the client side and end the request stream: the server
 * never sees a whole request, and what it answers to that is read and counted), to lose the
 * response (forward the request, swallow the server's reply and close the client side: the server
 * did the work, the agent never hears of it) or to hedge it (send the request to two targets at
 * once, as a hedging load balancer does; the client gets one reply, the other is read and dropped).
 * A per-chunk delay slows all traffic. Every HTTP response, hedged twin included, is counted by an
 * {@link HttpStatusTally}. In front of Redis it has one target, which a failover moves ({@link
 * #setTargets}). Decisions come from a seeded {@link Random}, so a run can be repeated.
 */
final class FaultProxy implements AutoCloseable {
  /** What happened to a connection. */
  public enum Fault {
    PASS,
    DROP_CONNECTION,
    LOSE_RESPONSE,
    HEDGE
  }

  private volatile List<InetSocketAddress> targets;
  private volatile List<InetSocketAddress> hedgeTargets;
  private final ServerSocket listener;
  private final ExecutorService threads = Executors.newCachedThreadPool(FaultProxy::daemon);
  private final Random random;
  private final Map<Fault, AtomicLong> counts = new EnumMap<>(Fault.class);
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile double dropRate;
  private volatile double loseRate;
  private volatile double hedgeRate;
  private final HttpStatusTally tally = new HttpStatusTally();
  private volatile long delayMillis;
  private volatile boolean partitioned;
  private final Set<Socket> held = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /**
   * Listens on a free loopback port and forwards to {@code target}.
   *
   * @param dropRate probability of {@link Fault#DROP_CONNECTION} per connection, 0..1
   * @param loseRate probability of {@link Fault#LOSE_RESPONSE} per connection, 0..1
   * @param seed seed of the fault decisions
   */
  public FaultProxy(InetSocketAddress target, double dropRate, double loseRate, long seed)
      throws IOException {
    this(List.of(target), dropRate, loseRate, seed);
  }

  /**
   * Listens on a free loopback port and spreads connections over {@code targets}.
   *
   * @param dropRate probability of {@link Fault#DROP_CONNECTION} per connection, 0..1
   * @param loseRate probability of {@link Fault#LOSE_RESPONSE} per connection, 0..1
   * @param seed seed of the fault decisions
   */
  public FaultProxy(List<InetSocketAddress> targets, double dropRate, double loseRate, long seed)
      throws IOException {
    setTargets(targets);
    this.random = new Random(seed);
    setRates(dropRate, loseRate);
    for (Fault f : Fault.values()) {
      counts.put(f, new AtomicLong());
    }
    this.listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    threads.execute(this::acceptLoop);
  }

  /** The port agents connect to. */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Sets the fault probabilities for new connections.
   *
   * @throws IllegalArgumentException unless both are in 0..1 and their sum is at most 1
   */
  public void setRates(double dropRate, double loseRate) {
    if (!(dropRate >= 0 && loseRate >= 0 && dropRate + loseRate <= 1)) {
      throw new IllegalArgumentException(
          "fault rates: got drop "
              + dropRate
              + ", lose "
              + loseRate
              + ", want each >= 0, sum <= 1");
    }
    this.dropRate = dropRate;
    this.loseRate = loseRate;
  }

  /** Sends new connections to {@code targets} (one chosen at random per connection). */
  public void setTargets(List<InetSocketAddress> targets) {
    if (targets == null || targets.isEmpty()) {
      throw new IllegalArgumentException("proxy targets: got none, want at least one");
    }
    this.targets = List.copyOf(targets);
    this.hedgeTargets = this.targets;
  }

  /**
   * Sends the two halves of a hedged connection to two of {@code targets} instead of two of the
   * regular targets: with a real load balancer as the one regular target, a hedge still reaches two
   * instances directly.
   */
  public void setHedgeTargets(List<InetSocketAddress> targets) {
    if (targets == null || targets.size() < 2) {
      throw new IllegalArgumentException(
          "hedge targets: got " + (targets == null ? 0 : targets.size()) + ", want at least 2");
    }
    this.hedgeTargets = List.copyOf(targets);
  }

  /**
   * Sets the probability that a new connection is {@link Fault#HEDGE}d to two targets at once.
   *
   * @throws IllegalArgumentException unless in 0..1 and, when above 0, there are two targets
   */
  public void setHedgeRate(double rate) {
    if (!(rate >= 0 && rate <= 1)) {
      throw new IllegalArgumentException("hedge rate: got " + rate + ", want 0..1");
    }
    if (rate > 0 && hedgeTargets.size() < 2) {
      throw new IllegalArgumentException(
          "hedge rate: got " + rate + " with " + hedgeTargets.size() + " target, want 2 targets");
    }
    this.hedgeRate = rate;
  }

  /** The HTTP responses seen so far. */
  HttpStatusTally statuses() {
    return tally;
  }

  /** Delays every forwarded chunk by {@code millis} (0 for none). */
  public void setDelayMillis(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("delay: got " + millis + " ms, want >= 0");
    }
    this.delayMillis = millis;
  }

  /** Connections per fault so far. */
  public Map<Fault, Long> injected() {
    Map<Fault, Long> out = new EnumMap<>(Fault.class);
    counts.forEach((f, n) -> out.put(f, n.get()));
    return out;
  }

  private Fault decide() {
    double r;
    double h;
    synchronized (random) {
      r = random.nextDouble();
      h = random.nextDouble();
    }
    if (h < hedgeRate) {
      return Fault.HEDGE;
    }
    if (r < dropRate) {
      return Fault.DROP_CONNECTION;
    }
    if (r < dropRate + loseRate) {
      return Fault.LOSE_RESPONSE;
    }
    return Fault.PASS;
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return;
      }
      if (partitioned) {
        hold(client);
        continue;
      }
      Fault fault = decide();
      counts.get(fault).incrementAndGet();
      List<InetSocketAddress> to = fault == Fault.HEDGE ? hedgeTargets : targets;
      int first;
      int second;
      synchronized (random) {
        first = random.nextInt(to.size());
        second = to.size() < 2 ? -1 : (first + 1 + random.nextInt(to.size() - 1)) % to.size();
      }
      InetSocketAddress main = to.get(first);
      InetSocketAddress twin = fault == Fault.HEDGE && second >= 0 ? to.get(second) : null;
      threads.execute(() -> handle(client, fault, main, twin));
    }
  }

  private void handle(
      Socket client, Fault fault, InetSocketAddress main, InetSocketAddress twinTarget) {
    Socket server = new Socket();
    open.add(client);
    open.add(server);
    try {
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
      server.connect(main, 2_000);
    } catch (IOException e) {
      closeBoth(client, server);
      return;
    }
    Socket twin = twinTarget == null ? null : connectTwin(twinTarget);
    threads.execute(() -> pumpRequest(client, server, twin, fault));
    threads.execute(() -> pumpResponse(server, client, fault));
    if (twin != null) {
      threads.execute(() -> drainTwin(twin));
    }
  }

  /** The second connection of a hedged request, or null when its target is down. */
  private Socket connectTwin(InetSocketAddress to) {
    Socket twin = new Socket();
    open.add(twin);
    try {
      twin.setTcpNoDelay(true);
      twin.setSoTimeout(30_000);
      twin.connect(to, 2_000);
      return twin;
    } catch (IOException e) {
      closeBoth(twin, twin);
      return null;
    }
  }

  private void pumpRequest(Socket client, Socket server, Socket twin, Fault fault) {
    byte[] buf = new byte[16 * 1024];
    OutputStream toTwin = null;
    boolean serverHalfOpen = false;
    try (InputStream in = client.getInputStream()) {
      OutputStream out = server.getOutputStream();
      toTwin = twin == null ? null : twin.getOutputStream();
      int n;
      while ((n = in.read(buf)) >= 0) {
        pause();
        if (fault == Fault.DROP_CONNECTION) {
          out.write(buf, 0, Math.max(1, n / 2));
          out.flush();
          // the client is gone; the server sees its request end early and its answer is
          // still read (and counted) by pumpResponse
          closeBoth(client, client);
          server.setSoTimeout(30_000);
          server.shutdownOutput();
          serverHalfOpen = true;
          return;
        }
        if (toTwin != null) {
          toTwin.write(buf, 0, n);
          toTwin.flush();
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // one side closed: the connection is over
    } finally {
      if (serverHalfOpen) {
        closeBoth(client, client);
      } else {
        closeBoth(client, server);
      }
      if (toTwin != null) {
        try {
          twin.shutdownOutput(); // the twin's server answers, then closes
        } catch (IOException e) {
          // already closed
        }
      }
    }
  }

  /** Reads a hedged twin's reply to the end, for the tally only. */
  private void drainTwin(Socket twin) {
    byte[] buf = new byte[16 * 1024];
    HttpStatusTally.Sniffer sniffer = tally.sniffer();
    try (InputStream in = twin.getInputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        sniffer.feed(buf, n);
      }
    } catch (IOException e) {
      // cut or timed out: the twin is over
    } finally {
      sniffer.finish();
      closeBoth(twin, twin);
    }
  }

  private void pumpResponse(Socket server, Socket client, Fault fault) {
    byte[] buf = new byte[16 * 1024];
    HttpStatusTally.Sniffer sniffer = tally.sniffer();
    try (InputStream in = server.getInputStream()) {
      // a dropped connection's client is gone: its server's answer is only counted
      OutputStream out = fault == Fault.DROP_CONNECTION ? null : client.getOutputStream();
      int n;
      while ((n = in.read(buf)) >= 0) {
        sniffer.feed(buf, n);
        if (fault == Fault.LOSE_RESPONSE) {
          break;
        }
        if (out != null) {
          pause();
          out.write(buf, 0, n);
          out.flush();
        }
      }
    } catch (IOException e) {
      // one side closed: the connection is over
    } finally {
      sniffer.finish();
      closeBoth(client, server);
    }
  }

  private void pause() {
    long d = delayMillis;
    if (d > 0) {
      try {
        Thread.sleep(d);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void closeBoth(Socket a, Socket b) {
    for (Socket s : new Socket[] {a, b}) {
      open.remove(s);
      try {
        s.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }

  /**
   * Starts ({@code true}) or ends a network partition: starting it closes every open connection and
   * holds every new one open without forwarding a byte, as a network that lost the route does
   * (clients time out); ending it closes the held connections, and new ones pass again.
   */
  public void partition(boolean on) {
    partitioned = on;
    if (on) {
      cutAll();
      return;
    }
    for (Socket s : held) {
      closeBoth(s, s);
      held.remove(s);
    }
  }

  private void hold(Socket client) {
    held.add(client);
    if (!partitioned) {
      // the partition ended while this connection was accepted
      held.remove(client);
      closeBoth(client, client);
    }
  }

  /** Closes every connection now, as a network partition would. */
  public void cutAll() {
    for (Socket s : open) {
      try {
        s.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    partition(false);
    cutAll();
    threads.shutdownNow();
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "fault-proxy");
    t.setDaemon(true);
    return t;
  }
}
