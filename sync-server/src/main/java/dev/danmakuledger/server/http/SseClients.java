package dev.danmakuledger.server.http;

import io.javalin.http.sse.SseClient;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open SSE connections, with a periodic comment heartbeat: it keeps idle connections alive
 * through proxies and finds dead subscribers (a failed write closes the client, whose close handler
 * unsubscribes it). Writes hold the client's monitor.
 */
final class SseClients implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SseClients.class);

  private final Set<SseClient> open = ConcurrentHashMap.newKeySet();
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

  /** Tracks a client until it closes, then closes its subscription. */
  void add(SseClient client, AutoCloseable subscription) {
    open.add(client);
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

  int size() {
    return open.size();
  }

  private void beat() {
    for (SseClient c : open) {
      synchronized (c) {
        if (c.terminated()) {
          open.remove(c);
        } else {
          c.sendComment("keepalive");
        }
      }
    }
  }

  /** Stops the heartbeat and closes every open stream. */
  @Override
  public void close() {
    heartbeat.shutdownNow();
    for (SseClient c : open) {
      synchronized (c) {
        c.close();
      }
    }
    open.clear();
  }
}
