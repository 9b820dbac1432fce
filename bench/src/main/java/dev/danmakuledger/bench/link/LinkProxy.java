package dev.danmakuledger.bench.link;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Arrays;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy that shapes the traffic between a device and the sync server as a {@link LinkProfile}
 * link would, in user space (no {@code netem} needed): each direction is a {@link Lane} that sends
 * a chunk only once the link's rate has room for it (a token bucket with no burst: the bottleneck
 * serialises the bytes) and delivers it half the round-trip time after it left; a new connection
 * waits one round trip before its first byte (the TCP handshake). A link that drops resets every
 * open connection at exponentially distributed times. Bytes are counted as they enter the link, per
 * direction.
 *
 * <p>Not modelled: TCP's own congestion control over the long path (slow start, window growth),
 * packet loss and reordering; the figures are those of a link whose window is always open.
 */
public final class LinkProxy implements AutoCloseable {
  /** Largest chunk read at once; the lanes also cut chunks to about 5 ms of their rate. */
  private static final int MAX_CHUNK = 16 * 1024;

  private static final int MIN_CHUNK = 1460;

  private final InetSocketAddress target;
  private final LinkProfile profile;
  private final ServerSocket listener;
  private final ExecutorService threads = Executors.newCachedThreadPool(LinkProxy::daemon);
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Lane up;
  private final Lane down;
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong drops = new AtomicLong();
  private final long oneWayNanos;
  private volatile boolean closed;

  /**
   * Listens on a free loopback port and forwards every connection to {@code target} over the link.
   *
   * @param seed seed of the drop times
   */
  public LinkProxy(InetSocketAddress target, LinkProfile profile, long seed) throws IOException {
    this.target = Objects.requireNonNull(target, "target");
    this.profile = Objects.requireNonNull(profile, "profile");
    this.up = new Lane(profile.upBytesPerSecond());
    this.down = new Lane(profile.downBytesPerSecond());
    this.oneWayNanos = profile.rtt().toNanos() / 2;
    this.listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    threads.execute(this::acceptLoop);
    if (profile.meanTimeBetweenDrops() != null) {
      Random random = new Random(seed);
      threads.execute(() -> dropLoop(random));
    }
  }

  /** The port devices connect to. */
  public int port() {
    return listener.getLocalPort();
  }

  public LinkProfile profile() {
    return profile;
  }

  /** Bytes the devices sent into the link so far. */
  public long bytesUp() {
    return up.bytes.get();
  }

  /** Bytes the server sent into the link so far. */
  public long bytesDown() {
    return down.bytes.get();
  }

  /** How the device-to-server direction was used so far ({@link Usage}). */
  public Usage upUsage() {
    return up.usage();
  }

  /** Connections accepted so far. */
  public long connections() {
    return connections.get();
  }

  /** Times the link dropped its connections so far. */
  public long drops() {
    return drops.get();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return;
      }
      connections.incrementAndGet();
      threads.execute(() -> connect(client));
    }
  }

  private void connect(Socket client) {
    Socket server = new Socket();
    try {
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
      server.connect(target, 5_000);
    } catch (IOException e) {
      closeQuietly(client);
      closeQuietly(server);
      return;
    }
    open.add(client);
    open.add(server);
    Connection c = new Connection(client, server);
    long firstByte = System.nanoTime() + 2 * oneWayNanos;
    pipe(c, client, server, up, firstByte);
    pipe(c, server, client, down, firstByte);
  }

  /** One direction of a connection: a reader paced by the lane, a writer that adds the delay. */
  private void pipe(Connection c, Socket from, Socket to, Lane lane, long notBefore) {
    BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    threads.execute(
        () -> {
          byte[] buf = new byte[lane.chunkBytes()];
          try {
            InputStream in = from.getInputStream();
            sleepUntil(notBefore);
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
              long left = lane.send(n);
              sleepUntil(left);
              queue.add(new Chunk(Arrays.copyOf(buf, n), left + oneWayNanos));
            }
            queue.add(new Chunk(null, System.nanoTime() + oneWayNanos));
          } catch (IOException e) {
            queue.add(Chunk.BROKEN);
          }
        });
    threads.execute(
        () -> {
          try {
            OutputStream out = to.getOutputStream();
            for (Chunk chunk = queue.take(); chunk != Chunk.BROKEN; chunk = queue.take()) {
              sleepUntil(chunk.deliverAt);
              if (chunk.bytes == null) {
                to.shutdownOutput();
                c.directionDone();
                return;
              }
              out.write(chunk.bytes);
              out.flush();
            }
          } catch (IOException | InterruptedException e) {
            // the other side is gone: so is this connection
          }
          c.reset();
        });
  }

  /** Both directions of one proxied connection. */
  private final class Connection {
    private final Socket client;
    private final Socket server;
    private final AtomicLong open = new AtomicLong(2);

    Connection(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    /** One direction ended normally; after both, the connection is closed. */
    void directionDone() {
      if (open.decrementAndGet() == 0) {
        LinkProxy.this.open.remove(client);
        LinkProxy.this.open.remove(server);
        closeQuietly(client);
        closeQuietly(server);
      }
    }

    void reset() {
      LinkProxy.this.reset(client);
      LinkProxy.this.reset(server);
    }
  }

  private void dropLoop(Random random) {
    double meanNanos = profile.meanTimeBetweenDrops().toNanos();
    while (!closed) {
      sleepUntil(System.nanoTime() + (long) (-Math.log(1 - random.nextDouble()) * meanNanos));
      if (closed) {
        return;
      }
      drops.incrementAndGet();
      for (Socket s : open) {
        reset(s);
      }
    }
  }

  /** Closes with an RST, as a link that goes away does to the peer's next read or write. */
  private void reset(Socket s) {
    open.remove(s);
    try {
      s.setSoLinger(true, 0);
    } catch (SocketException e) {
      // already closed
    }
    closeQuietly(s);
  }

  private static void sleepUntil(long nanoTime) {
    for (long wait = nanoTime - System.nanoTime(); wait > 0; wait = nanoTime - System.nanoTime()) {
      LockSupport.parkNanos(wait);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "link-proxy");
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket s : open) {
      closeQuietly(s);
    }
    threads.shutdownNow();
  }

  /** Bytes in flight: null bytes for the end of the stream. */
  private record Chunk(byte[] bytes, long deliverAt) {
    static final Chunk BROKEN = new Chunk(null, 0);
  }

  /**
   * How one direction of a rate-limited link was used between its first and its last byte: how long
   * that was, and how much of it the link stood idle, in how many pauses of at least {@link
   * #PAUSE_NANOS} and the longest of them (all zero for a link without a rate).
   */
  public record Usage(long spanNanos, long idleNanos, int pauses, long longestPauseNanos) {
    /** Shortest idle time counted as a pause: about a round trip on the fastest profile. */
    public static final long PAUSE_NANOS = 20_000_000;

    /** The share of the span the link was busy, 0..1 (1 for an empty span). */
    public double busy() {
      return spanNanos <= 0 ? 1 : 1 - (double) idleNanos / spanNanos;
    }
  }

  /**
   * One direction of the link, shared by all its connections: the bottleneck that sends one chunk
   * after the other at the link's rate.
   */
  private static final class Lane {
    private final long bytesPerSecond;
    private final AtomicLong bytes = new AtomicLong();
    private long freeAt = System.nanoTime();
    private long firstByteAt;
    private boolean started;
    private long idleNanos;
    private int pauses;
    private long longestPause;

    Lane(long bytesPerSecond) {
      this.bytesPerSecond = bytesPerSecond;
    }

    int chunkBytes() {
      if (bytesPerSecond == 0) {
        return MAX_CHUNK;
      }
      return (int) Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, bytesPerSecond / 200));
    }

    /** Takes {@code n} bytes onto the link; returns when their last byte has left. */
    synchronized long send(int n) {
      bytes.addAndGet(n);
      long now = System.nanoTime();
      if (bytesPerSecond == 0) {
        return now;
      }
      if (freeAt - now < 0) {
        if (!started) {
          started = true;
          firstByteAt = now;
        } else {
          long idle = now - freeAt;
          idleNanos += idle;
          if (idle >= Usage.PAUSE_NANOS) {
            pauses++;
            longestPause = Math.max(longestPause, idle);
          }
        }
        freeAt = now;
      }
      freeAt += n * 1_000_000_000L / bytesPerSecond;
      return freeAt;
    }

    synchronized Usage usage() {
      return new Usage(started ? freeAt - firstByteAt : 0, idleNanos, pauses, longestPause);
    }
  }
}
