package dev.danmakuledger.edge.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.danmakuledger.edge.capture.AgentStatus;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.wire.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local ingest API (docs/architecture.md §2, §8), served by the JDK HTTP server on a loopback
 * address only, for programs on this device and never for web pages (see {@link LoopbackGuard}):
 *
 * <ul>
 *   <li>{@code POST /v1/danmaku}: 201 with the ack of a new capture, 200 with the ORIGINAL ack of a
 *       repeated key, 403 for a foreign {@code Host} or {@code Origin}, 415 for a body that is not
 *       {@code application/json}, 400 on malformed JSON or a missing/malformed key or field, 413
 *       over {@link #MAX_BODY_BYTES}, 422 when the key was used for other content, 507 at the store
 *       bound.
 *   <li>{@code GET /v1/status}: {@link AgentStatus} as JSON.
 *   <li>{@code GET /metrics}: Prometheus text.
 * </ul>
 *
 * A post that finds the capture service idle commits on its own request thread; concurrent posts
 * share the capture service's group commits.
 */
public final class IngestServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IngestServer.class);

  /** Largest accepted request body. */
  public static final int MAX_BODY_BYTES = 16 * 1024;

  private static final String JSON = "application/json";
  private static final String NODELAY = "sun.net.httpserver.nodelay";
  private static final String MAX_REQUEST_SECONDS = "sun.net.httpserver.maxReqTime";

  /**
   * Longest time a local client may take to send a whole request, head and body. The JDK server
   * reads a request on a worker thread, so a client that stalls mid-request holds one; past this
   * deadline its connection is closed and the thread is free.
   */
  public static final int REQUEST_DEADLINE_SECONDS = 5;

  /**
   * Worker threads: enough that a crowd of stalled local clients (each holding one until the
   * deadline) leaves threads for everyone else. Idle threads end after 30 s.
   */
  public static final int MAX_THREADS = 256;

  /** Connections waiting for a thread; beyond it a new connection is closed unanswered. */
  public static final int MAX_QUEUED = 64;

  private final HttpServer server;
  private final ExecutorService executor;
  private final CaptureService capture;
  private final EdgeStore store;
  private final long maxStoreBytes;
  private final ObjectMapper json = Json.mapper();
  private final RequestValidation validation;
  private final ConcurrentHashMap<Integer, LongAdder> responses = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final LoopbackGuard guard;

  private IngestServer(
      HttpServer server, CaptureService capture, EdgeStore store, long maxStoreBytes) {
    this.server = server;
    this.capture = capture;
    this.store = store;
    this.maxStoreBytes = maxStoreBytes;
    this.validation = new RequestValidation(json, capture.deviceId());
    this.guard = new LoopbackGuard(server.getAddress().getPort());
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            MAX_THREADS,
            MAX_THREADS,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(MAX_QUEUED),
            r -> {
              Thread t = new Thread(r, "edge-api-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    this.executor = pool;
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  /**
   * Binds and starts the API.
   *
   * @param bind a loopback address; port 0 picks a free port
   * @throws IllegalArgumentException if {@code bind} is not a loopback address
   */
  public static IngestServer start(
      InetSocketAddress bind, CaptureService capture, EdgeStore store, long maxStoreBytes)
      throws IOException {
    if (bind.isUnresolved() || !bind.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException(
          "listen address: got "
              + bind.getHostString()
              + ", want a loopback address such as 127.0.0.1 (the local API is not for the"
              + " network)");
    }
    // Without TCP_NODELAY the JDK server's separate header and body writes meet the client's
    // delayed ACK and every answer waits ~40 ms. The server reads this once, when it first starts.
    if (System.getProperty(NODELAY) == null) {
      System.setProperty(NODELAY, "true");
    }
    // The JDK server's only read deadline; also read once, when it first starts.
    if (System.getProperty(MAX_REQUEST_SECONDS) == null) {
      System.setProperty(MAX_REQUEST_SECONDS, Integer.toString(REQUEST_DEADLINE_SECONDS));
    }
    HttpServer http = HttpServer.create(bind, 128);
    IngestServer server = new IngestServer(http, capture, store, maxStoreBytes);
    http.start();
    return server;
  }

  /** The bound address (with the real port). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  /** "127.0.0.1:7070". */
  public String hostPort() {
    return address().getAddress().getHostAddress() + ":" + address().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    inFlight.incrementAndGet();
    try (ex) {
      String path = ex.getRequestURI().getPath();
      String method = ex.getRequestMethod();
      try {
        Problem refused = LoopbackGuard.absoluteForm(ex.getRequestURI());
        if (refused == null) {
          refused =
              guard.refusal(
                  ex.getRequestHeaders().get("Host"), ex.getRequestHeaders().get("Origin"));
        }
        if (refused != null) {
          problem(ex, refused);
        } else if (path.equals("/v1/danmaku") && method.equals("POST")) {
          postDanmaku(ex);
        } else if (path.equals("/v1/status") && method.equals("GET")) {
          send(
              ex,
              200,
              JSON,
              json.writeValueAsBytes(AgentStatus.live(capture, store, maxStoreBytes)));
        } else if (path.equals("/metrics") && method.equals("GET")) {
          String text =
              Metrics.render(
                  AgentStatus.live(capture, store, maxStoreBytes),
                  responseCounts(),
                  capture.queued());
          send(ex, 200, Metrics.CONTENT_TYPE, text.getBytes(StandardCharsets.UTF_8));
        } else {
          problem(ex, Problem.of(ErrorCode.NOT_FOUND, "no route for " + method + " " + path));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        problem(ex, Problem.of(ErrorCode.INTERNAL, "the agent is shutting down"));
      } catch (Exception e) {
        Problem p = ErrorMapping.toProblem(e);
        if (p.status() >= 500) {
          LOG.warn("{} {} failed: {}", method, path, e.toString());
        }
        problem(ex, p);
      }
    } finally {
      inFlight.decrementAndGet();
    }
  }

  private void postDanmaku(HttpExchange ex) throws Exception {
    Problem notJson =
        LoopbackGuard.unsupportedMediaType(ex.getRequestHeaders().getFirst("Content-Type"));
    if (notJson != null) {
      problem(ex, notJson);
      return;
    }
    byte[] body = readBody(ex);
    CaptureRequest request =
        validation.parse(body, ex.getRequestHeaders().getFirst("Idempotency-Key"));
    CaptureAck ack = capture.capture(request);
    send(ex, ack.repeat() ? 200 : 201, JSON, json.writeValueAsBytes(ack));
  }

  private static byte[] readBody(HttpExchange ex) throws IOException, ApiException {
    String length = ex.getRequestHeaders().getFirst("Content-Length");
    if (length != null) {
      long declared;
      try {
        declared = Long.parseLong(length.trim());
      } catch (NumberFormatException e) {
        declared = -1;
      }
      if (declared > MAX_BODY_BYTES) {
        throw tooLarge(declared + " bytes");
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    try (InputStream in = ex.getRequestBody()) {
      int n;
      while ((n = in.read(buf)) > 0) {
        out.write(buf, 0, n);
        if (out.size() > MAX_BODY_BYTES) {
          throw tooLarge("more than " + MAX_BODY_BYTES + " bytes");
        }
      }
    }
    return out.toByteArray();
  }

  private static ApiException tooLarge(String got) {
    return new ApiException(
        Problem.of(
                ErrorCode.BODY_TOO_LARGE,
                "request body: got " + got + ", want at most " + MAX_BODY_BYTES + " bytes")
            .with("maxBytes", MAX_BODY_BYTES));
  }

  private void problem(HttpExchange ex, Problem p) throws IOException {
    byte[] body;
    try {
      body = json.writeValueAsBytes(p);
    } catch (JsonProcessingException e) {
      body = ("{\"status\":" + p.status() + "}").getBytes(StandardCharsets.UTF_8);
    }
    if (p.status() == 413 || p.status() == 415 || p.status() == 403) {
      ex.getResponseHeaders().set("Connection", "close");
    }
    send(ex, p.status(), Problem.MEDIA_TYPE, body);
  }

  private void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
    responses.computeIfAbsent(status, s -> new LongAdder()).increment();
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  private SortedMap<Integer, Long> responseCounts() {
    SortedMap<Integer, Long> out = new TreeMap<>();
    responses.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  /**
   * Waits up to five seconds for requests in flight, then stops the server. (The JDK server's own
   * grace period always waits its full delay on Java 17, so it is not used.)
   */
  @Override
  public void close() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      while (inFlight.get() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.stop(0);
    executor.shutdown();
  }
}
