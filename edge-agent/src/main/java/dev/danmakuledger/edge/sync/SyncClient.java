package dev.danmakuledger.edge.sync;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.trace.TraceParent;
import dev.danmakuledger.protocol.wire.AcksResponse;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.BinaryBatch;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.EnrollResponse;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import okhttp3.ConnectionPool;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * The sync server's device API over OkHttp (docs/openapi.yaml): enrol, read the verified log state,
 * read stored acks, post a batch. One call per method, no retries (the {@link Syncer} decides);
 * every non-2xx answer becomes a {@link ServerProblemException}, every transport failure an {@link
 * IOException}. Replies are read leniently (unknown members ignored) so a newer server can add
 * fields.
 *
 * <p>Batches go in gzip while the server's latest answer announced {@code Accept-Encoding: gzip}
 * (docs/sync.md, "Compressed batches"); should it refuse the coding after all (415, or a 400 for
 * bytes it could not read: an older instance behind the same address), the same batch goes again
 * uncompressed within the call, and uncompressed it stays until an answer announces gzip again.
 *
 * <p>Every answer to {@code /log} and {@code /batches} says how many batches of the device the
 * server takes in flight ({@value #WINDOW_HEADER}, docs/sync.md, "Batches in flight"); the latest
 * is {@link #serverWindow()}, 1 for a server that does not say.
 *
 * <p>Thread-safe: batches of one device may be posted from several threads at once. Share one
 * {@link OkHttpClient} per process: it owns the connection pool.
 */
public final class SyncClient {
  private static final MediaType JSON = MediaType.get("application/json");

  private static final MediaType BINARY_BATCH = MediaType.get(BinaryBatch.MEDIA_TYPE);

  /** The header with which a server announces its window of batches in flight. */
  public static final String WINDOW_HEADER = "Danmaku-Batch-Window";

  /**
   * The request header of a batch that names the cosigner key its agent checks receipts with, by
   * its key ID {@code name+hash} (docs/sync.md, "Receipts"): a server whose cosigner key that is
   * need not add the note signature older agents check.
   */
  public static final String RECEIPT_COSIGNER_HEADER = "Danmaku-Receipt-Cosigner";

  /** Largest reply body read, so a hostile server cannot exhaust memory. */
  static final long MAX_REPLY_BYTES = 64L * 1024 * 1024;

  private final OkHttpClient http;
  private final HttpUrl base;
  private final ObjectMapper json;
  private final Clock clock;
  private final boolean compress;

  /** The latest answer's {@code Accept-Encoding} named gzip (RFC 7694). */
  private volatile boolean serverTakesGzip;

  /** The latest answer to {@code /log} or {@code /batches} named the binary body in Accept-Post. */
  private volatile boolean serverTakesBinary;

  /** The window of the latest answer to {@code /log} or {@code /batches}. */
  private volatile int serverWindow = 1;

  /** What every batch names in {@value #RECEIPT_COSIGNER_HEADER}, or null to send none. */
  private volatile String receiptCosigner;

  /**
   * A client that compresses batches when the server takes gzip.
   *
   * @param base the server's base URL, e.g. {@code http://127.0.0.1:8080}
   * @throws IllegalArgumentException if {@code base} is not an http(s) URL
   */
  public SyncClient(OkHttpClient http, String base, Clock clock) {
    this(http, base, clock, true);
  }

  /**
   * @param base the server's base URL, e.g. {@code http://127.0.0.1:8080}
   * @param compress whether batches go in gzip when the server takes it; false sends every batch as
   *     plain JSON
   * @throws IllegalArgumentException if {@code base} is not an http(s) URL
   */
  public SyncClient(OkHttpClient http, String base, Clock clock, boolean compress) {
    this.http = Objects.requireNonNull(http, "http");
    this.compress = compress;
    HttpUrl url = HttpUrl.parse(Objects.requireNonNull(base, "base"));
    if (url == null) {
      throw new IllegalArgumentException("server URL: got " + base + ", want http(s)://host:port");
    }
    this.base = url;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.json = Json.mapper().copy().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  /**
   * A client with the timeouts the agent uses: connect 5 s, read/write 30 s, whole call 60 s; its
   * pool keeps a connection for each batch of the largest window idle between runs.
   */
  public static OkHttpClient defaultHttp() {
    return new OkHttpClient.Builder()
        .connectionPool(connectionPool())
        .connectTimeout(Duration.ofSeconds(5))
        .readTimeout(Duration.ofSeconds(30))
        .writeTimeout(Duration.ofSeconds(30))
        .callTimeout(Duration.ofSeconds(60))
        .retryOnConnectionFailure(false)
        .build();
  }

  /**
   * A connection pool that keeps up to {@link SyncSettings#MAX_WINDOW} idle connections for 5
   * minutes: batches in flight are sent each on a connection of its own (HTTP/1.1), and OkHttp's
   * default pool keeps only 5, so a larger window would connect again for every batch.
   */
  public static ConnectionPool connectionPool() {
    return new ConnectionPool(SyncSettings.MAX_WINDOW, 5, TimeUnit.MINUTES);
  }

  public String baseUrl() {
    return base.toString();
  }

  /** {@code POST /v1/devices}. */
  public EnrollResponse enroll(EnrollRequest request) throws IOException {
    return call(post(url("v1", "devices"), request), EnrollResponse.class, "enroll");
  }

  /** {@code GET /v1/devices/{id}/log}. */
  public LogState log(String deviceId) throws IOException {
    return call(
        new Request.Builder().url(url("v1", "devices", deviceId, "log")).get().build(),
        LogState.class,
        "read the verified log of " + deviceId,
        true);
  }

  /** {@code GET /v1/devices/{id}/acks?from=A&to=B}: stored outcomes of {@code [from, to)}. */
  public AcksResponse acks(String deviceId, long from, long to) throws IOException {
    HttpUrl u =
        url("v1", "devices", deviceId, "acks")
            .newBuilder()
            .addQueryParameter("from", Long.toString(from))
            .addQueryParameter("to", Long.toString(to))
            .build();
    return call(
        new Request.Builder().url(u).get().build(),
        AcksResponse.class,
        "read the acks [" + from + ", " + to + ") of " + deviceId,
        false);
  }

  /**
   * Names, on every batch from now on, the cosigner key {@code verifier} checks receipts with, or
   * nothing when it knows none (the server then adds the note signature by the first server key, as
   * it does for a key that is not its own).
   */
  public void checkReceiptsWith(ReceiptVerifier verifier) {
    receiptCosigner = verifier.cosignerKeyId();
  }

  /**
   * {@code POST /v1/devices/{id}/batches}, with a fresh W3C {@code traceparent} so that the
   * server's problem body, log lines and alerts name the same trace id as this agent's error.
   */
  public BatchResponse postBatch(String deviceId, BatchRequest batch) throws IOException {
    return postBatch(deviceId, batch, () -> {});
  }

  /**
   * A batch's body encoded ahead of its upload: plain JSON, or, when this client compresses and the
   * server took gzip at the time of encoding, gzip of the binary body if the server took that too
   * (docs/sync.md, "Binary batches"), else of the JSON.
   */
  static final class Encoded {
    private final BatchRequest request;
    private final byte[] bytes;
    private final MediaType type;
    private final boolean gzip;

    private Encoded(BatchRequest request, byte[] bytes, MediaType type, boolean gzip) {
      this.request = request;
      this.bytes = bytes;
      this.type = type;
      this.gzip = gzip;
    }
  }

  /** Encodes {@code batch} now, so that its upload can start the moment the link is free. */
  Encoded encode(BatchRequest batch) throws IOException {
    if (!compressing()) {
      return plain(batch);
    }
    if (serverTakesBinary) {
      return new Encoded(batch, gzip(binary(batch)), BINARY_BATCH, true);
    }
    return new Encoded(batch, gzip(json.writeValueAsBytes(batch)), JSON, true);
  }

  private Encoded plain(BatchRequest batch) throws IOException {
    return new Encoded(batch, json.writeValueAsBytes(batch), JSON, false);
  }

  /**
   * The binary body of {@code batch}: its JSON without the records as the head, then their bytes.
   */
  private byte[] binary(BatchRequest batch) throws IOException {
    byte[] head =
        json.writeValueAsBytes(
            new BatchRequest(batch.oldSize(), List.of(), batch.checkpoint(), batch.metadata()));
    List<byte[]> records = new ArrayList<>(batch.records().size());
    for (WireRecord r : batch.records()) {
      records.add(r.canonicalBytes());
    }
    return BinaryBatch.encode(head, records);
  }

  /**
   * {@link #postBatch(String, BatchRequest)} of a body encoded before, running {@code bodySent}
   * once the request body was written to the connection (not when it failed before): the {@link
   * BatchWindow} starts the next batch's upload only then, so that batches reach the server in log
   * order.
   */
  BatchResponse postBatch(String deviceId, BatchRequest batch, Runnable bodySent)
      throws IOException {
    return postBatch(deviceId, encode(batch), bodySent);
  }

  /** See {@link #postBatch(String, BatchRequest, Runnable)}. */
  BatchResponse postBatch(String deviceId, Encoded encoded, Runnable bodySent) throws IOException {
    BatchRequest batch = encoded.request;
    TraceParent trace = TraceParent.random();
    HttpUrl url = url("v1", "devices", deviceId, "batches");
    String what =
        "send records ["
            + batch.oldSize()
            + ", "
            + (batch.oldSize() + batch.records().size())
            + ") of "
            + deviceId
            + " (trace "
            + trace.traceId()
            + ")";
    if (encoded.gzip && compressing()) {
      try {
        return call(batchRequest(url, encoded, trace, bodySent), BatchResponse.class, what, true);
      } catch (ServerProblemException e) {
        if (!refusedTheCoding(e)) {
          throw e;
        }
        // an instance that does not take gzip or the binary body after all (an older one behind
        // the same address): nothing was stored, so the same batch goes again as plain JSON
        serverTakesGzip = false;
        serverTakesBinary = false;
      }
    }
    Encoded plain = encoded.gzip ? plain(batch) : encoded;
    return call(batchRequest(url, plain, trace, bodySent), BatchResponse.class, what, true);
  }

  /**
   * Whether batches go in gzip now: the server announced, on its latest answer, that it takes gzip
   * request bodies (docs/sync.md, "Compressed batches"), and this client compresses.
   */
  public boolean compressing() {
    return compress && serverTakesGzip;
  }

  /**
   * The most batches of one device the server takes in flight, as its latest answer to {@code /log}
   * or {@code /batches} announced ({@value #WINDOW_HEADER}): 1 when that answer did not say (a
   * server before batches in flight) or said something other than 1..{@value
   * SyncSettings#MAX_WINDOW}; a larger number counts as {@value SyncSettings#MAX_WINDOW}.
   */
  public int serverWindow() {
    return serverWindow;
  }

  /**
   * The window announced by {@code values} of {@value #WINDOW_HEADER} (see {@link #serverWindow}).
   */
  static int windowOf(List<String> values) {
    if (values.size() != 1) {
      return 1;
    }
    String v = values.get(0).strip();
    if (v.isEmpty() || v.length() > 9 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return 1;
    }
    int n = Integer.parseInt(v);
    return n < 1 ? 1 : Math.min(n, SyncSettings.MAX_WINDOW);
  }

  private Request batchRequest(HttpUrl url, Encoded body, TraceParent trace, Runnable bodySent) {
    Request.Builder b =
        new Request.Builder()
            .url(url)
            .post(signalling(RequestBody.create(body.bytes, body.type), bodySent))
            .header(TraceParent.HEADER, trace.header());
    if (body.gzip) {
      b.header("Content-Encoding", "gzip");
    }
    String cosigner = receiptCosigner;
    if (cosigner != null) {
      b.header(RECEIPT_COSIGNER_HEADER, cosigner);
    }
    return b.build();
  }

  /** {@code body}, running {@code sent} after it was written and flushed to the connection. */
  private static RequestBody signalling(RequestBody body, Runnable sent) {
    return new RequestBody() {
      @Override
      public MediaType contentType() {
        return body.contentType();
      }

      @Override
      public long contentLength() throws IOException {
        return body.contentLength();
      }

      @Override
      public void writeTo(okio.BufferedSink sink) throws IOException {
        body.writeTo(sink);
        sink.flush();
        sent.run();
      }
    };
  }

  /** A refusal of the body's coding rather than of the batch: 415, or 400 for unreadable bytes. */
  private static boolean refusedTheCoding(ServerProblemException e) {
    if (e.status() == 415) {
      return true;
    }
    ErrorCode code = e.errorCode().orElse(null);
    return e.status() == 400
        && (code == null
            || code == ErrorCode.MALFORMED_JSON
            || code == ErrorCode.MALFORMED_REQUEST);
  }

  /** {@code body} in gzip (RFC 1952). */
  private static byte[] gzip(byte[] body) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 3 + 64);
    try (GZIPOutputStream g = new GZIPOutputStream(out, 64 * 1024)) {
      g.write(body);
    }
    return out.toByteArray();
  }

  private HttpUrl url(String... segments) {
    HttpUrl.Builder b = base.newBuilder();
    for (String s : segments) {
      b.addPathSegment(s);
    }
    return b.build();
  }

  private Request post(HttpUrl url, Object body) throws JsonProcessingException {
    return new Request.Builder()
        .url(url)
        .post(RequestBody.create(json.writeValueAsBytes(body), JSON))
        .build();
  }

  private <T> T call(Request request, Class<T> type, String what) throws IOException {
    return call(request, type, what, false);
  }

  /** Runs {@code request}; {@code announcesWindow}: its answer carries the server's window. */
  private <T> T call(Request request, Class<T> type, String what, boolean announcesWindow)
      throws IOException {
    try (Response response = http.newCall(request).execute()) {
      serverTakesGzip = takesGzip(response.headers("Accept-Encoding"));
      if (announcesWindow) {
        serverWindow = windowOf(response.headers(WINDOW_HEADER));
        serverTakesBinary = takesBinary(response.headers("Accept-Post"));
      }
      byte[] body = read(response.body(), what);
      if (!response.isSuccessful()) {
        throw new ServerProblemException(
            response.code(),
            problem(body),
            retryAfter(response.header("Retry-After")),
            "cannot " + what);
      }
      try {
        return json.readValue(body, type);
      } catch (IOException | IllegalArgumentException e) {
        throw new IOException(
            "cannot " + what + ": reply is not a valid " + type.getSimpleName() + ": " + e, e);
      }
    }
  }

  /**
   * Whether {@code Accept-Post} field values (W3C Linked Data Platform 1.0 §7.1: media types, comma
   * separated) name the binary batch body {@value BinaryBatch#MEDIA_TYPE}, parameters aside.
   */
  static boolean takesBinary(List<String> acceptPost) {
    for (String value : acceptPost) {
      for (String element : value.split(",")) {
        if (element.split(";")[0].strip().equalsIgnoreCase(BinaryBatch.MEDIA_TYPE)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether {@code Accept-Encoding} field values name gzip (RFC 9110 §12.5.3), not at q=0. */
  static boolean takesGzip(List<String> acceptEncoding) {
    for (String value : acceptEncoding) {
      for (String element : value.split(",")) {
        String[] parts = element.split(";");
        if (!parts[0].strip().equalsIgnoreCase("gzip")) {
          continue;
        }
        boolean refused = false;
        for (int i = 1; i < parts.length; i++) {
          String param = parts[i].strip().toLowerCase(Locale.ROOT);
          refused |= param.startsWith("q=") && param.substring(2).strip().matches("0(\\.0{0,3})?");
        }
        if (!refused) {
          return true;
        }
      }
    }
    return false;
  }

  private static byte[] read(ResponseBody body, String what) throws IOException {
    if (body == null) {
      return new byte[0];
    }
    long length = body.contentLength();
    if (length > MAX_REPLY_BYTES) {
      throw new IOException(
          "cannot " + what + ": reply of " + length + " bytes, want <= " + MAX_REPLY_BYTES);
    }
    okio.BufferedSource source = body.source();
    if (!source.request(MAX_REPLY_BYTES + 1)) {
      return source.readByteArray();
    }
    throw new IOException("cannot " + what + ": reply larger than " + MAX_REPLY_BYTES + " bytes");
  }

  private Problem problem(byte[] body) {
    if (body.length == 0) {
      return null;
    }
    try {
      return json.readValue(body, Problem.class);
    } catch (IOException | IllegalArgumentException e) {
      return null;
    }
  }

  /** Parses {@code Retry-After}: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
  Duration retryAfter(String header) {
    if (header == null || header.isBlank()) {
      return null;
    }
    String v = header.strip();
    try {
      long seconds = Long.parseLong(v);
      return seconds < 0 ? null : Duration.ofSeconds(Math.min(seconds, 3600));
    } catch (NumberFormatException e) {
      try {
        ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
        Duration d = Duration.between(clock.instant(), at.toInstant());
        return d.isNegative() ? Duration.ZERO : d;
      } catch (DateTimeParseException notADate) {
        return null;
      }
    }
  }
}
