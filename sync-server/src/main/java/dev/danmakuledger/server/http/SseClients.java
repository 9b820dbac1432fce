package dev.danmakuledger.server.http;

import io.javalin.http.sse.SseClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open SSE connections, with a periodic comment heartbeat: it keeps idle connections alive
 * through proxies and finds dead subscribers (a failed write closes the client, whose close handler
 * unsubscribes it). Writes to one client hold its lock; the heartbeat skips a client whose writer
 * is busy (blocked on a slow connection), so one stalled subscriber never stalls the others.
 */
final class SseClients implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SseClients.class);

  private final Map<SseClient, ReentrantLock> open = new ConcurrentHashMap<>();
  private final ScheduledExecutorService heartbeat;

  SseClients(Duration every) {
    heartbeat =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sse-heartbeat");
              t.setDaemon(true);
              return t;
            });
    long ms = every.toMillis();
    heartbeat.scheduleWithFixedDelay(this::beat, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** Starts tracking a client, before anything writes to it. */
  void track(SseClient client) {
    open.putIfAbsent(client, new ReentrantLock());
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
    ReentrantLock lock = open.get(client);
    if (lock == null) {
      return false;
    }
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

  private void beat() {
    for (Map.Entry<SseClient, ReentrantLock> e : open.entrySet()) {
      SseClient c = e.getKey();
      if (!e.getValue().tryLock()) {
        continue;
      }
      try {
        if (c.terminated()) {
          open.remove(c);
        } else {
          c.sendComment("keepalive");
        }
      } catch (RuntimeException ex) {
        log.debug("heartbeat failed: {}", ex.toString());
      } finally {
        e.getValue().unlock();
      }
    }
  }

  /** Stops the heartbeat and closes every open stream. */
  @Override
  public void close() {
    heartbeat.shutdownNow();
    for (Map.Entry<SseClient, ReentrantLock> e : open.entrySet()) {
      if (e.getValue().tryLock()) {
        try {
          e.getKey().close();
        } finally {
          e.getValue().unlock();
        }
      } else {
        e.getKey().close();
      }
    }
    open.clear();
  }
}
