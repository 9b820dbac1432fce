package dev.danmakuledger.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * How the API's Jetty runs under the admission limits (docs/operations.md, "Admission limits"):
 * threads, header size, minimum body rate, idle timeout, the listen backlog, and the container's
 * own errors as problem+json.
 */
final class JettySettings {
  /** Request threads kept when idle. */
  private static final int MIN_THREADS = 8;

  /** How long a request thread beyond {@link #MIN_THREADS} lives idle, in ms. */
  private static final int THREAD_IDLE_MS = 60_000;

  /**
   * Connections the kernel completes and holds until the acceptor takes them (the listen backlog,
   * capped by the kernel's {@code net.core.somaxconn}). Jetty's default hands the JDK's 50, and a
   * venue's terminals connecting at once overflow it whenever the acceptor thread waits for a core:
   * the kernel drops their handshakes and each retries a second later, a second added to its first
   * batch (docs/operations.md, "Admission limits").
   */
  static final int ACCEPT_QUEUE = 1024;

  private JettySettings() {}

  /**
   * The listener's request threads, at most {@link HttpLimits#maxThreads()}: they read requests and
   * write replies, and a batch's reply is written by one of them when its tick committed, so none
   * waits for a commit.
   *
   * <p>None is kept reserved. With reserved threads Jetty's selector reads a connection that has
   * bytes itself and hands its selecting to a reserved thread, which the pool then replaces with
   * another: two threads woken a read. Without, the selector hands the read to a pool thread and
   * goes on selecting: one (many devices' small batches: docs/benchmarks.md, "live").
   */
  static QueuedThreadPool threadPool(HttpLimits limits) {
    QueuedThreadPool pool = new QueuedThreadPool(limits.maxThreads(), MIN_THREADS, THREAD_IDLE_MS);
    pool.setName("http");
    pool.setReservedThreads(0);
    return pool;
  }

  /**
   * Applies the limits to a Javalin configuration being built, with {@code pool} as its threads.
   */
  static void configure(
      JavalinConfig cfg,
      HttpLimits limits,
      long maxBodyBytes,
      ObjectMapper json,
      QueuedThreadPool pool) {
    cfg.showJavalinBanner = false;
    cfg.http.maxRequestSize = maxBodyBytes;
    cfg.router.ignoreTrailingSlashes = true;
    cfg.http.prefer405over404 = true;
    ContainerErrors errors = new ContainerErrors(json);
    cfg.jetty.modifyServer(
        server -> {
          server.setErrorHandler(errors);
          // Javalin adds its connector after this and before it starts the server
          server.addEventListener(
              new LifeCycle.Listener() {
                @Override
                public void lifeCycleStarting(LifeCycle event) {
                  for (Connector c : server.getConnectors()) {
                    if (c instanceof ServerConnector connector) {
                      connector.setAcceptQueueSize(ACCEPT_QUEUE);
                    }
                  }
                }
              });
        });
    cfg.jetty.modifyServletContextHandler(context -> context.setErrorHandler(errors));
    cfg.jetty.threadPool = pool;
    cfg.jetty.modifyHttpConfiguration(
        http -> {
          http.setRequestHeaderSize(limits.maxHeaderBytes());
          http.setMinRequestDataRate(limits.minBodyBytesPerSecond());
          http.setIdleTimeout(limits.idleTimeout().toMillis());
          // buffers from the heap, bounded by -Xmx: ten thousand open streams would otherwise
          // keep a direct output buffer each in Jetty's pool, outside the heap
          http.setUseOutputDirectByteBuffers(false);
          http.setUseInputDirectByteBuffers(false);
        });
  }

  /**
   * Applies the limits that only a started server's connectors take, and adds {@code completions}
   * to them: it hears of every request's end.
   */
  static void started(Javalin app, HttpLimits limits, HttpChannel.Listener completions) {
    for (Connector c : app.jettyServer().server().getConnectors()) {
      if (c instanceof AbstractConnector connector) {
        connector.setIdleTimeout(limits.idleTimeout().toMillis());
        connector.addBean(completions);
      }
    }
  }
}
