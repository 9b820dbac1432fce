package dev.danmakuledger.bench.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy between agents and the sync server that injects network faults (the chaos run): per
 * accepted connection it decides, with the configured probabilities, to pass it through, to drop it
 * (forward part of the first request, then close both sides: the server never sees a whole request)
 * or to lose the response (forward the request, swallow the server's reply and close the client
 * side: the server did the work, the agent never hears of it). A per-chunk delay slows all traffic.
 * Decisions come from a seeded {@link Random}, so a run can be repeated.
 */
public final class FaultProxy implements AutoCloseable {
  /** What happened to a connection. */
  public enum Fault {
    PASS,
    DROP_CONNECTION,
    LOSE_RESPONSE
  }

  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final ExecutorService threads = Executors.newCachedThreadPool(FaultProxy::daemon);
  private final Random random;
  private final Map<Fault, AtomicLong> counts = new EnumMap<>(Fault.class);
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile double dropRate;
  private volatile double loseRate;
  private volatile long delayMillis;
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
    this.target = target;
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
    synchronized (random) {
      r = random.nextDouble();
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
      Fault fault = decide();
      counts.get(fault).incrementAndGet();
      threads.execute(() -> handle(client, fault));
    }
  }

  private void handle(Socket client, Fault fault) {
    Socket server = new Socket();
    open.add(client);
    open.add(server);
    try {
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
      server.connect(target, 2_000);
    } catch (IOException e) {
      closeBoth(client, server);
      return;
    }
    threads.execute(() -> pumpRequest(client, server, fault));
    threads.execute(() -> pumpResponse(server, client, fault));
  }

  private void pumpRequest(Socket client, Socket server, Fault fault) {
    byte[] buf = new byte[16 * 1024];
    try (InputStream in = client.getInputStream()) {
      OutputStream out = server.getOutputStream();
      int n;
      while ((n = in.read(buf)) >= 0) {
        pause();
        if (fault == Fault.DROP_CONNECTION) {
          out.write(buf, 0, Math.max(1, n / 2));
          out.flush();
          break;
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // one side closed: the connection is over
    } finally {
      closeBoth(client, server);
    }
  }

  private void pumpResponse(Socket server, Socket client, Fault fault) {
    byte[] buf = new byte[16 * 1024];
    try (InputStream in = server.getInputStream()) {
      OutputStream out = client.getOutputStream();
      int n;
      while ((n = in.read(buf)) >= 0) {
        if (fault == Fault.LOSE_RESPONSE) {
          break;
        }
        pause();
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // one side closed: the connection is over
    } finally {
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
    cutAll();
    threads.shutdownNow();
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "fault-proxy");
    t.setDaemon(true);
    return t;
  }
}
