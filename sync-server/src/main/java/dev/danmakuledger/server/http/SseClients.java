package dev.danmakuledger.server.http;

import io.javalin.http.sse.SseClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open SSE connections, with a periodic comment heartbeat: it keeps idle connections alive
 * through proxies and finds dead subscribers (a failed write closes the client, whose close handler
 * unsubscribes it). Writes to one client hold its lock; the heartbeat skips a client whose writer
 * is busy (blocked on a slow connection), so one stalled subscriber never stalls the others. The
 * clients are dealt into {@link #SLICES} slices as they come, and the heartbeat beats one slice
 * each {@code every / SLICES}: each client still hears from it once every {@code every}, and ten
 * thousand streams are not written to in one burst.
 */
final class SseClients implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SseClients.class);

  /** The slices the heartbeat beats in turn. */
  static final int SLICES = 15;

  /** A client's write lock and the slice of the heartbeat it is in. */
  private record Tracked(ReentrantLock lock, int slice) {}

  private final Map<SseClient, Tracked> open = new ConcurrentHashMap<>();
  private final AtomicInteger dealt = new AtomicInteger();
  private final ScheduledExecutorService heartbeat;
  private int turn;

  SseClients(Duration every) {
    heartbeat =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sse-heartbeat");
              t.setDaemon(true);
              return t;
            });
    long ms = Math.max(1, every.toMillis() / SLICES);
    heartbeat.scheduleWithFixedDelay(this::beatNext, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** Starts tracking a client, before anything writes to it. */
  void track(SseClient client) {
    open.computeIfAbsent(
        client,
        c -> new Tracked(new ReentrantLock(), Math.floorMod(dealt.getAndIncrement(), SLICES)));
  }

  /** Tracks a client until it closes, then closes its subscription. */
  void add(SseClient client, AutoCloseable subscription) {
    track(client);
    client.onClose(
        () -> {
          open.remove(client);
          try {
            subscription.close();
          } catch (Exception e) {
            log.debug("unsubscribe failed: {}", e.toString());
          }
        });
  }

  /**
   * Runs one write on a tracked {@code client} under its lock (blocking while another write runs);
   * a client no longer tracked is closed, and the write is skipped.
   *
   * @return false when the write was skipped
   */
  boolean write(SseClient client, Consumer<SseClient> action) {
    Tracked tracked = open.get(client);
    if (tracked == null) {
      return false;
    }
    ReentrantLock lock = tracked.lock();
    lock.lock();
    try {
      action.accept(client);
      return true;
    } finally {
      lock.unlock();
    }
  }

  int size() {
    return open.size();
  }

  private void beatNext() {
    beat(turn);
    turn = (turn + 1) % SLICES;
  }

  /**
   * Sends the heartbeat comment to the clients of {@code slice} whose writer is free; forgets the
   * terminated ones. Package-private so that tests beat a slice by hand.
   *
   * @return how many clients it was sent to
   */
  int beat(int slice) {
    int sent = 0;
    for (Map.Entry<SseClient, Tracked> e : open.entrySet()) {
      Tracked t = e.getValue();
      if (t.slice() != slice || !t.lock().tryLock()) {
        continue;
      }
      SseClient c = e.getKey();
      try {
        if (c.terminated()) {
          open.remove(c);
        } else {
          c.sendComment("keepalive");
          sent++;
        }
      } catch (RuntimeException ex) {
        log.debug("heartbeat failed: {}", ex.toString());
      } finally {
        t.lock().unlock();
      }
    }
    return sent;
  }

  /** Stops the heartbeat and closes every open stream. */
  @Override
  public void close() {
    heartbeat.shutdownNow();
    for (Map.Entry<SseClient, Tracked> e : open.entrySet()) {
      ReentrantLock lock = e.getValue().lock();
      if (lock.tryLock()) {
        try {
          e.getKey().close();
        } finally {
          lock.unlock();
        }
      } else {
        e.getKey().close();
      }
    }
    open.clear();
  }
}
