package dev.danmakuledger.bench.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.merkle.checkpoint.CosignatureVerifier;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.EnrollResponse;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.server.http.HttpApi;
import dev.danmakuledger.server.ingest.ReceiptSignatures;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The device side of the sync-server HTTP API (docs/architecture.md §4, §8) as the benchmarks and
 * the harnesses use it: one JDK {@link HttpClient} (HTTP/1.1, keep-alive), the project's strict
 * JSON mapper, and replies that keep the status and the problem document instead of throwing, so a
 * caller can count refusals. Transport failures are {@link IOException}.
 */
public final class LedgerClient {
  private final URI base;
  private final HttpClient http;

  /**
   * One mapper for every client: a mapper builds its serializers on first use, so one per simulated
   * device would spend each device's first batch building them, inside the timed run.
   */
  private static final ObjectMapper JSON = Json.mapper();

  private final Duration timeout;
  private final boolean closeEach;

  /**
   * The idle connections of this client's own that batches are posted on, or null to post them with
   * {@link #http}.
   */
  private final Deque<PlainHttp> batches;

  /**
   * The ID of the server's cosigner key, from the last enrolment through this client (or the one it
   * was made from), else null: every batch names it in {@code Danmaku-Receipt-Cosigner}
   * (docs/sync.md, "Receipts"), as an agent that was given the key at enrolment does, so the server
   * signs its receipt once.
   */
  private final AtomicReference<String> receiptCosigner;

  /** A reply: the status and either the parsed body or the problem document. */
  public record Reply<T>(int status, T body, Problem problem) {
    public boolean ok() {
      return status == 200;
    }

    /** The problem's stable code, or {@code "http-<status>"} without one. */
    public String code() {
      if (problem != null && problem.code() != null) {
        return problem.code();
      }
      return "http-" + status;
    }
  }

  /**
   * @param base the server, e.g. {@code http://127.0.0.1:8080}
   * @param timeout the per-request timeout
   */
  public LedgerClient(URI base, Duration timeout) {
    this(base, timeout, false);
  }

  /**
   * As {@link #LedgerClient(URI, Duration)}; with {@code closeEach} every request asks the server
   * to close the connection after its reply ({@code Connection: close}), so a fault-injecting proxy
   * that decides per connection decides per request. That header is restricted in the JDK client:
   * the process must set {@code -Djdk.httpclient.allowRestrictedHeaders=connection} before the
   * first client is built.
   */
  public LedgerClient(URI base, Duration timeout, boolean closeEach) {
    this(base, timeout, closeEach, newHttpClient());
  }

  /**
   * As {@link #LedgerClient(URI, Duration)} on {@code http}, which many simulated devices may
   * share: one selector thread and one connection pool for all of them instead of one each, so that
   * a bench of hundreds of devices spends the CPU on the server under test, not on its own clients.
   * Each request still takes a connection of its own while it runs.
   */
  public LedgerClient(URI base, Duration timeout, HttpClient http) {
    this(base, timeout, false, http);
  }

  private LedgerClient(URI base, Duration timeout, boolean closeEach, HttpClient http) {
    this(base, timeout, closeEach, http, null, new AtomicReference<>());
  }

  private LedgerClient(
      URI base,
      Duration timeout,
      boolean closeEach,
      HttpClient http,
      Deque<PlainHttp> batches,
      AtomicReference<String> receiptCosigner) {
    this.base = base;
    this.timeout = timeout;
    this.closeEach = closeEach;
    this.http = http;
    this.batches = batches;
    this.receiptCosigner = receiptCosigner;
  }

  /**
   * This client, but posting batches ({@link #postBatch}, {@link #sendBatch}) over keep-alive
   * connections of its own ({@link PlainHttp}), written and read on the caller's thread: for a
   * simulated device, so that hundreds of them cost the machine little besides the server's work. A
   * batch takes an idle connection, or a new one when every connection awaits a reply.
   */
  public LedgerClient withOwnConnections() {
    return new LedgerClient(base, timeout, closeEach, http, new ArrayDeque<>(), receiptCosigner);
  }

  /**
   * A JDK client as this class uses it (HTTP/1.1, keep-alive), to share with {@link
   * #LedgerClient(URI, Duration, HttpClient)}.
   */
  public static HttpClient newHttpClient() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** {@code POST /v1/devices}. */
  public Reply<EnrollResponse> enroll(String deviceId, String publicKeyBase64, String token)
      throws IOException, InterruptedException {
    Reply<EnrollResponse> reply =
        post(
            "/v1/devices",
            new EnrollRequest(deviceId, publicKeyBase64, token),
            EnrollResponse.class);
    if (reply.ok() && reply.body().cosignerVerifierKey() != null) {
      receiptCosigner.set(CosignatureVerifier.parse(reply.body().cosignerVerifierKey()).keyId());
    }
    return reply;
  }

  /** {@code POST /v1/devices/{deviceId}/batches}. */
  public Reply<BatchResponse> postBatch(String deviceId, BatchRequest batch)
      throws IOException, InterruptedException {
    return postBatch(deviceId, toJson(batch));
  }

  /**
   * The header fields of a batch beside its content type: the cosigner key the receipts are checked
   * with, once enrolment named it (docs/sync.md, "Receipts").
   */
  private Map<String, String> batchHeaders() {
    String cosigner = receiptCosigner.get();
    return cosigner == null ? Map.of() : Map.of(ReceiptSignatures.HEADER, cosigner);
  }

  /** The JSON body {@link #postBatch} would send for {@code batch}, to send later. */
  public byte[] encode(BatchRequest batch) {
    return toJson(batch);
  }

  /** {@code POST /v1/devices/{deviceId}/batches} with a body {@link #encode} made. */
  public Reply<BatchResponse> postBatch(String deviceId, byte[] encodedBatch)
      throws IOException, InterruptedException {
    if (batches == null) {
      HttpRequest.Builder req =
          builder(batchPath(deviceId))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(encodedBatch));
      batchHeaders().forEach(req::header);
      return reply(
          http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray()), BatchResponse.class);
    }
    return sendBatch(deviceId, encodedBatch).reply();
  }

  /**
   * Writes {@code POST /v1/devices/{deviceId}/batches} with a body {@link #encode} made on a
   * connection of this client's own and returns before the reply: the way a device keeps several
   * batches in flight, each on a connection of its own. {@link SentBatch#reply} reads the reply on
   * the caller's thread.
   *
   * @throws IllegalStateException when this client has no connections of its own ({@link
   *     #withOwnConnections})
   */
  public SentBatch sendBatch(String deviceId, byte[] encodedBatch) throws IOException {
    if (batches == null) {
      throw new IllegalStateException("sendBatch needs connections of its own");
    }
    PlainHttp connection;
    synchronized (batches) {
      connection = batches.isEmpty() ? new PlainHttp(base, timeout) : batches.pop();
    }
    try {
      connection.send(
          batchPath(deviceId),
          "application/json",
          encodedBatch,
          batchHeaders().entrySet().stream()
              .map(h -> h.getKey() + ": " + h.getValue())
              .toArray(String[]::new));
    } catch (IOException | RuntimeException e) {
      idle(connection);
      throw e;
    }
    return new SentBatch(connection);
  }

  /** A batch {@link #sendBatch} wrote, its reply not read yet. */
  public final class SentBatch {
    private final PlainHttp connection;
    private boolean read;

    private SentBatch(PlainHttp connection) {
      this.connection = connection;
    }

    /**
     * Reads the reply, once; the connection then takes the client's next batch.
     *
     * @throws IllegalStateException when it was read already
     */
    public Reply<BatchResponse> reply() throws IOException {
      if (read) {
        throw new IllegalStateException("the reply was read already");
      }
      read = true;
      try {
        PlainHttp.Response res = connection.receive();
        return LedgerClient.this.reply(
            res.status(), res.contentType(), res.body(), BatchResponse.class);
      } finally {
        idle(connection);
      }
    }
  }

  private void idle(PlainHttp connection) {
    synchronized (batches) {
      batches.push(connection);
    }
  }

  private static String batchPath(String deviceId) {
    return "/v1/devices/" + deviceId + "/batches";
  }

  /**
   * The most batches of {@code deviceId} the server holds at once, from the {@code
   * Danmaku-Batch-Window} header of {@code GET /v1/devices/{deviceId}/log} (docs/architecture.md
   * §5, "Batches in flight"); 1 when the server sends none, as an older server does.
   */
  public int batchWindow(String deviceId) throws IOException, InterruptedException {
    HttpRequest req = builder("/v1/devices/" + deviceId + "/log").GET().build();
    HttpResponse<Void> res = http.send(req, HttpResponse.BodyHandlers.discarding());
    if (res.statusCode() != 200) {
      throw new IOException("GET log of " + deviceId + ": HTTP " + res.statusCode());
    }
    String window = res.headers().firstValue(HttpApi.BATCH_WINDOW_HEADER).orElse("1");
    try {
      return Math.max(1, Integer.parseInt(window.strip()));
    } catch (NumberFormatException e) {
      throw new IOException(HttpApi.BATCH_WINDOW_HEADER + ": got " + window + ", want a number");
    }
  }

  /** {@code GET /v1/devices/{deviceId}/log}. */
  public Reply<LogState> log(String deviceId) throws IOException, InterruptedException {
    return get("/v1/devices/" + deviceId + "/log", LogState.class);
  }

  /** {@code GET /v1/devices/{deviceId}/proofs/inclusion?index=}. */
  public Reply<InclusionProofResponse> inclusion(String deviceId, long index)
      throws IOException, InterruptedException {
    return get(
        "/v1/devices/" + deviceId + "/proofs/inclusion?index=" + index,
        InclusionProofResponse.class);
  }

  /** {@code GET /v1/rooms/{room}/messages?after=&limit=}. */
  public Reply<RoomPage> room(String room, long after, int limit)
      throws IOException, InterruptedException {
    return get(
        "/v1/rooms/"
            + URLEncoder.encode(room, StandardCharsets.UTF_8)
            + "/messages?after="
            + after
            + "&limit="
            + limit,
        RoomPage.class);
  }

  /** {@code GET /readyz}: true when the server answers 200 (Redis and SQL reachable). */
  public boolean ready() throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/readyz")).timeout(timeout).GET().build();
    return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
  }

  /** {@code GET /v1/messages/{idempotencyKey}}. */
  public Reply<RoomMessage> message(String idempotencyKey)
      throws IOException, InterruptedException {
    return get(
        "/v1/messages/" + URLEncoder.encode(idempotencyKey, StandardCharsets.UTF_8),
        RoomMessage.class);
  }

  private <T> Reply<T> post(String path, Object body, Class<T> type)
      throws IOException, InterruptedException {
    return postJson(path, toJson(body), type);
  }

  private byte[] toJson(Object body) {
    try {
      return JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialise " + body.getClass().getSimpleName(), e);
    }
  }

  private <T> Reply<T> postJson(String path, byte[] body, Class<T> type)
      throws IOException, InterruptedException {
    HttpRequest req =
        builder(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    return reply(http.send(req, HttpResponse.BodyHandlers.ofByteArray()), type);
  }

  private <T> Reply<T> get(String path, Class<T> type) throws IOException, InterruptedException {
    HttpRequest req = builder(path).GET().build();
    return reply(http.send(req, HttpResponse.BodyHandlers.ofByteArray()), type);
  }

  private HttpRequest.Builder builder(String path) {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout);
    if (closeEach) {
      b.header("Connection", "close");
    }
    return b;
  }

  private <T> Reply<T> reply(HttpResponse<byte[]> res, Class<T> type) throws IOException {
    return reply(
        res.statusCode(), res.headers().firstValue("Content-Type").orElse(""), res.body(), type);
  }

  private <T> Reply<T> reply(int status, String contentType, byte[] body, Class<T> type)
      throws IOException {
    if (status == 200) {
      return new Reply<>(200, JSON.readValue(body, type), null);
    }
    Problem problem = null;
    if (contentType.startsWith(Problem.MEDIA_TYPE)) {
      problem = JSON.readValue(body, Problem.class);
    }
    return new Reply<>(status, null, problem);
  }
}
