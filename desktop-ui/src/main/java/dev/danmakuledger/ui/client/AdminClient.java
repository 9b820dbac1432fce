package dev.danmakuledger.ui.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.room.AuditBundle;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.AlertList;
import dev.danmakuledger.protocol.wire.admin.ClusterHistory;
import dev.danmakuledger.protocol.wire.admin.DeviceKey;
import dev.danmakuledger.protocol.wire.admin.DeviceList;
import dev.danmakuledger.protocol.wire.admin.InstanceList;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.protocol.wire.admin.ReviewDecision;
import dev.danmakuledger.protocol.wire.admin.ReviewQueue;
import dev.danmakuledger.protocol.wire.admin.RoomList;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's only gateway to the sync server: the admin API ({@code /admin/...}, bearer admin
 * token) and the read side of the public API the inspector needs ({@code /v1/messages}, {@code
 * /v1/rooms}, {@code /v1/devices/{id}/log} and inclusion proofs), docs/architecture.md §8. Every
 * call blocks; callers run it off the FX thread. Failures become {@link ApiException}s.
 * Thread-safe.
 */
public final class AdminClient {
  private static final Logger log = LoggerFactory.getLogger(AdminClient.class);
  private static final MediaType JSON = MediaType.get("application/json");
  private static final long MAX_BODY_BYTES = 16L * 1024 * 1024;
  private static final long MAX_PROBLEM_BYTES = 64L * 1024;

  private final OkHttpClient http;
  private final ObjectMapper mapper;
  private final AtomicReference<Endpoint> endpoint;

  /**
   * @param http the console's one HTTP client
   * @param endpoint initial server and token; {@link #reconnect} replaces them
   */
  public AdminClient(OkHttpClient http, Endpoint endpoint) {
    this.http = http;
    this.mapper = Json.mapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    this.endpoint = new AtomicReference<>(endpoint);
  }

  /** Points later calls at another server or token. */
  public void reconnect(Endpoint next) {
    endpoint.set(next);
  }

  public Endpoint endpoint() {
    return endpoint.get();
  }

  OkHttpClient http() {
    return http;
  }

  ObjectMapper mapper() {
    return mapper;
  }

  public Overview overview() throws ApiException {
    return get(url("admin", "overview"), Overview.class);
  }

  public DeviceList devices() throws ApiException {
    return get(url("admin", "devices"), DeviceList.class);
  }

  public RoomList rooms() throws ApiException {
    return get(url("admin", "rooms"), RoomList.class);
  }

  public ReviewQueue reviewQueue() throws ApiException {
    return get(url("admin", "review"), ReviewQueue.class);
  }

  public AlertList alerts() throws ApiException {
    return get(url("admin", "alerts"), AlertList.class);
  }

  /**
   * Messages of a room with {@code seq > after}, oldest first, at most {@code limit}; the page's
   * {@code next} is the {@code after} of the following page.
   */
  public RoomPage roomMessages(String room, long after, int limit) throws ApiException {
    HttpUrl u =
        url("v1", "rooms", room, "messages")
            .newBuilder()
            .addQueryParameter("after", Long.toString(after))
            .addQueryParameter("limit", Integer.toString(limit))
            .build();
    return get(u, RoomPage.class);
  }

  public RoomMessage messageByKey(String idempotencyKey) throws ApiException {
    return get(url("v1", "messages", idempotencyKey), RoomMessage.class);
  }

  public RoomMessage messageById(String messageId) throws ApiException {
    return get(url("v1", "messages", "by-id", messageId), RoomMessage.class);
  }

  public RoomMessage messageBySeq(String room, long seq) throws ApiException {
    return get(url("v1", "rooms", room, "messages", Long.toString(seq)), RoomMessage.class);
  }

  /** The device's verified log state with its signed checkpoint. */
  public LogState deviceLog(String deviceId) throws ApiException {
    return get(url("v1", "devices", deviceId, "log"), LogState.class);
  }

  /** The inclusion proof of leaf {@code index} in the device log of size {@code size}. */
  public InclusionProofResponse inclusionProof(String deviceId, long index, long size)
      throws ApiException {
    HttpUrl u =
        url("v1", "devices", deviceId, "proofs", "inclusion")
            .newBuilder()
            .addQueryParameter("index", Long.toString(index))
            .addQueryParameter("size", Long.toString(size))
            .build();
    return get(u, InclusionProofResponse.class);
  }

  /** Every sync-server instance in the registry, {@code GET /admin/instances}. */
  public InstanceList instances() throws ApiException {
    return get(url("admin", "instances"), InstanceList.class);
  }

  /** The cluster's last {@code minutes} minutes (1..1440), {@code GET /admin/history}. */
  public ClusterHistory history(int minutes) throws ApiException {
    HttpUrl u =
        url("admin", "history")
            .newBuilder()
            .addQueryParameter("minutes", Integer.toString(minutes))
            .build();
    return get(u, ClusterHistory.class);
  }

  /**
   * The audit bundle of room number {@code seq}, {@code GET /v1/rooms/{room}/messages/{seq}/bundle}
   * (docs/room-log.md, "Audit bundle"); 409 ({@link ApiException.Kind#CONFLICT}) while the number
   * is not integrated yet.
   */
  public AuditBundle auditBundle(String room, long seq) throws ApiException {
    return get(
        url("v1", "rooms", room, "messages", Long.toString(seq), "bundle"), AuditBundle.class);
  }

  /** The server's public log and cosigner keys. */
  public ServerKeys serverKeys() throws ApiException {
    return get(url("v1", "server", "keys"), ServerKeys.class);
  }

  /**
   * One file of a room's log below {@code /v1/rooms/{room}/log/}: {@code checkpoint}, {@code
   * tile/<L>/<N>[.p/<W>]} or {@code tile/entries/<N>[.p/<W>]} (C2SP tlog-tiles), at most {@code
   * maxBytes}; a missing file is {@link ApiException.Kind#NOT_FOUND}.
   */
  public byte[] roomLogFile(String room, String path, long maxBytes) throws ApiException {
    HttpUrl.Builder b = url("v1", "rooms", room, "log").newBuilder();
    for (String segment : path.split("/", -1)) {
      b.addPathSegment(segment);
    }
    HttpUrl u = b.build();
    Request request = authorized(u).header("Accept", "*/*").get().build();
    try (Response response = http.newCall(request).execute()) {
      if (!response.isSuccessful()) {
        throw failure(request, response);
      }
      ResponseBody body = response.body();
      byte[] bytes = body == null ? new byte[0] : readBounded(body, maxBytes);
      if (bytes == null) {
        throw new ApiException(
            ApiException.Kind.MALFORMED_RESPONSE,
            response.code(),
            "The server sent a room log file too large to be one (" + u.encodedPath() + ").",
            "GET " + u + ": body larger than " + maxBytes + " bytes",
            null);
      }
      return bytes;
    } catch (IOException e) {
      throw unreachable(request, e);
    }
  }

  public DeviceKey deviceKey(String deviceId) throws ApiException {
    return get(url("admin", "devices", deviceId, "key"), DeviceKey.class);
  }

  /**
   * The admin event feed {@code GET /admin/events}; call {@link EventStream#start()} to open it.
   */
  public EventStream<AdminEvent> adminEvents(
      ScheduledExecutorService scheduler,
      ReconnectDelays backoff,
      EventStream.Listener<AdminEvent> listener) {
    return new EventStream<>(
        this, () -> url("admin", "events"), AdminEvent.class, scheduler, backoff, listener);
  }

  /**
   * The message feed of one room, {@code GET /v1/rooms/{room}/stream?after=}: CONFIRMED messages
   * with {@code seq > after()}, each once, in sequence order; {@code after} is asked again before
   * every reconnection.
   */
  public EventStream<RoomMessage> roomStream(
      String room,
      LongSupplier after,
      ScheduledExecutorService scheduler,
      ReconnectDelays backoff,
      EventStream.Listener<RoomMessage> listener) {
    return new EventStream<>(
        this,
        () ->
            url("v1", "rooms", room, "stream")
                .newBuilder()
                .addQueryParameter("after", Long.toString(after.getAsLong()))
                .build(),
        RoomMessage.class,
        scheduler,
        backoff,
        listener);
  }

  /** Approves or rejects a PENDING message; 409 means its version moved on. */
  public void decide(String messageId, ReviewDecision decision) throws ApiException {
    byte[] body;
    try {
      body = mapper.writeValueAsBytes(decision);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode " + decision, e);
    }
    Request request =
        authorized(url("admin", "review", messageId)).post(RequestBody.create(body, JSON)).build();
    try (Response response = http.newCall(request).execute()) {
      if (!response.isSuccessful()) {
        throw failure(request, response);
      }
    } catch (IOException e) {
      throw unreachable(request, e);
    }
  }

  HttpUrl url(String... segments) {
    HttpUrl.Builder b = endpoint.get().baseUrl().newBuilder();
    for (String s : segments) {
      b.addPathSegment(s);
    }
    return b.build();
  }

  Request.Builder authorized(HttpUrl url) {
    return new Request.Builder()
        .url(url)
        .header("Authorization", "Bearer " + endpoint.get().token())
        .header("Accept", "application/json");
  }

  private <T> T get(HttpUrl url, Class<T> type) throws ApiException {
    Request request = authorized(url).get().build();
    try (Response response = http.newCall(request).execute()) {
      if (!response.isSuccessful()) {
        throw failure(request, response);
      }
      ResponseBody body = response.body();
      byte[] bytes = body == null ? new byte[0] : readBounded(body);
      if (bytes == null) {
        throw new ApiException(
            ApiException.Kind.MALFORMED_RESPONSE,
            response.code(),
            "The server sent a reply too large to read (" + url.encodedPath() + ").",
            "GET " + url + ": body larger than " + MAX_BODY_BYTES + " bytes",
            null);
      }
      try {
        T value = mapper.readValue(bytes, type);
        if (value == null) {
          throw new IOException("body is JSON null");
        }
        return value;
      } catch (IOException | RuntimeException e) {
        throw new ApiException(
            ApiException.Kind.MALFORMED_RESPONSE,
            response.code(),
            "The server sent a reply the console cannot read (" + url.encodedPath() + ").",
            "GET " + url + ": got unreadable " + type.getSimpleName() + " JSON: " + e.getMessage(),
            e);
      }
    } catch (IOException e) {
      throw unreachable(request, e);
    }
  }

  /** The whole body, or null if it is larger than {@link #MAX_BODY_BYTES}. */
  private static byte[] readBounded(ResponseBody body) throws IOException {
    return readBounded(body, MAX_BODY_BYTES);
  }

  /** The whole body, or null if it is larger than {@code max}. */
  private static byte[] readBounded(ResponseBody body, long max) throws IOException {
    if (body.contentLength() > max) {
      return null;
    }
    okio.BufferedSource source = body.source();
    if (source.request(max + 1)) {
      return null;
    }
    return source.readByteArray();
  }

  private ApiException unreachable(Request request, IOException e) {
    return new ApiException(
        ApiException.Kind.UNREACHABLE,
        0,
        "Cannot reach the server at " + endpoint.get().baseUrl() + ".",
        request.method() + " " + request.url() + ": " + e,
        e);
  }

  ApiException failure(Request request, Response response) {
    int code = response.code();
    String detail = problemDetail(response);
    String where = request.method() + " " + request.url().encodedPath();
    String logDetail = where + ": HTTP " + code + (detail == null ? "" : ": " + detail);
    log.debug("{}", logDetail);
    if (code == 401 || code == 403) {
      return new ApiException(
          ApiException.Kind.UNAUTHORIZED,
          code,
          "The server refused the admin token. Check the token file or the settings.",
          logDetail,
          null);
    }
    if (code == 404) {
      return new ApiException(
          ApiException.Kind.NOT_FOUND,
          code,
          detail == null ? "Not found." : "Not found: " + detail,
          logDetail,
          null);
    }
    if (code == 409) {
      return new ApiException(
          ApiException.Kind.CONFLICT,
          code,
          detail == null ? "Somebody else changed this first." : detail,
          logDetail,
          null);
    }
    if (code >= 400 && code < 500) {
      return new ApiException(
          ApiException.Kind.REJECTED,
          code,
          detail == null ? "The server refused the request (HTTP " + code + ")." : detail,
          logDetail,
          null);
    }
    return new ApiException(
        ApiException.Kind.SERVER_ERROR,
        code,
        "The server failed (HTTP " + code + ")" + (detail == null ? "." : ": " + detail),
        logDetail,
        null);
  }

  /** The problem+json {@code detail} (or {@code title}) of an error reply, if readable. */
  private String problemDetail(Response response) {
    ResponseBody body = response.body();
    if (body == null) {
      return null;
    }
    try {
      okio.BufferedSource source = body.source();
      source.request(MAX_PROBLEM_BYTES);
      byte[] bytes = source.readByteArray(Math.min(source.getBuffer().size(), MAX_PROBLEM_BYTES));
      JsonNode node = mapper.readTree(bytes);
      if (node == null || !node.isObject()) {
        return null;
      }
      JsonNode detail = node.get("detail");
      if (detail != null && detail.isTextual() && !detail.asText().isBlank()) {
        return detail.asText();
      }
      JsonNode title = node.get("title");
      return title != null && title.isTextual() ? title.asText() : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
