package dev.danmakuledger.demo.harness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * An HTTP proxy in front of the sync server that loses replies: every {@code k}-th batch request is
 * forwarded (so the server commits it) and then the client connection is closed without an answer,
 * as when a network drops the acknowledgement. Everything else passes through unchanged. The
 * exactly-once harness (demo and end-to-end tests) puts it between an agent and the server.
 */
public final class LossyProxy implements AutoCloseable {
  private static final List<String> PASSED_HEADERS =
      List.of("Content-Type", "Retry-After", "Idempotent-Replayed");

  private final HttpServer server;
  private final ExecutorService workers;
  private final OkHttpClient http;
  private final String upstream;
  private final int dropEvery;
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();

  private LossyProxy(
      HttpServer server, ExecutorService workers, OkHttpClient http, String upstream, int k) {
    this.server = server;
    this.workers = workers;
    this.http = http;
    this.upstream =
        upstream.endsWith("/") ? upstream.substring(0, upstream.length() - 1) : upstream;
    this.dropEvery = k;
  }

  /**
   * Starts a proxy on a free loopback port.
   *
   * @param dropEvery drop the reply of every {@code dropEvery}-th batch (0 = never)
   */
  public static LossyProxy start(OkHttpClient http, String upstream, int dropEvery)
      throws IOException {
    if (dropEvery < 0) {
      throw new IllegalArgumentException("dropEvery: got " + dropEvery + ", want >= 0");
    }
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    ExecutorService workers = Executors.newFixedThreadPool(4);
    server.setExecutor(workers);
    LossyProxy proxy = new LossyProxy(server, workers, http, upstream, dropEvery);
    server.createContext("/", proxy::handle);
    server.start();
    return proxy;
  }

  /** The proxy's base URL. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Batch requests seen. */
  public long batches() {
    return batches.get();
  }

  /** Batch replies dropped after the server had answered. */
  public long dropped() {
    return dropped.get();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      String method = ex.getRequestMethod();
      String contentType = ex.getRequestHeaders().getFirst("Content-Type");
      Request.Builder req = new Request.Builder().url(upstream + ex.getRequestURI().toString());
      if (method.equals("GET")) {
        req.get();
      } else {
        req.method(
            method,
            RequestBody.create(body, contentType == null ? null : MediaType.parse(contentType)));
      }
      boolean batch = method.equals("POST") && ex.getRequestURI().getPath().endsWith("/batches");
      boolean drop = batch && dropEvery > 0 && batches.incrementAndGet() % dropEvery == 0;
      if (batch && dropEvery == 0) {
        batches.incrementAndGet();
      }
      try (Response resp = http.newCall(req.build()).execute()) {
        ResponseBody rb = resp.body();
        byte[] out = rb == null ? new byte[0] : rb.bytes();
        if (drop) {
          dropped.incrementAndGet();
          return;
        }
        for (String h : PASSED_HEADERS) {
          String v = resp.header(h);
          if (v != null) {
            ex.getResponseHeaders().set(h, v);
          }
        }
        ex.sendResponseHeaders(resp.code(), out.length == 0 ? -1 : out.length);
        if (out.length > 0) {
          try (OutputStream os = ex.getResponseBody()) {
            os.write(out);
          }
        }
      } catch (IOException e) {
        ex.sendResponseHeaders(502, -1);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
    try {
      workers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
