package dev.danmakuledger.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.trace.TraceParent;
import dev.danmakuledger.protocol.wire.BinaryBatch;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.InstanceList;
import dev.danmakuledger.protocol.wire.admin.ReviewDecision;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.events.StreamRefusal;
import dev.danmakuledger.server.ingest.BatchIngest;
import dev.danmakuledger.server.ingest.DeviceEnroller;
import dev.danmakuledger.server.ingest.Review;
import dev.danmakuledger.server.ingest.SignatureFailures;
import dev.danmakuledger.server.instances.InstanceHistory;
import dev.danmakuledger.server.metrics.LedgerMetrics;
import dev.danmakuledger.server.query.AdminView;
import dev.danmakuledger.server.query.LedgerQueries;
import dev.danmakuledger.server.roomlog.AuditBundles;
import dev.danmakuledger.server.roomlog.RoomLogReads;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.DamagedRowException;
import dev.danmakuledger.server.tracing.Tracing;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.javalin.http.MethodNotAllowedResponse;
import io.javalin.http.sse.SseClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The HTTP API of the sync server (docs/sync-server.md, docs/openapi.yaml), on Javalin. Handlers
 * only parse (through {@link Requests}), call one service and serialise; failures go through {@link
 * Problems}. Who may do what is in docs/security.md: {@code /admin/*} needs the admin token, which
 * also unlocks held content on the public reads; failed batch authentications go through {@link
 * SignatureFailures}; the batch endpoint is {@link BatchRoute}, whose batches in flight {@link
 * #stop(Duration)} drains.
 */
public final class HttpApi {
  private static final Logger log = LoggerFactory.getLogger(HttpApi.class);
  private static final String JSON = "application/json";

  /** Services and settings the API needs. */
  public record Services(
      ConfirmedFeed feed,
      BatchIngest ingest,
      SignatureFailures signatureFailures,
      DeviceEnroller enroller,
      Review review,
      LedgerQueries queries,
      RoomLogReads roomLogs,
      AuditBundles auditBundles,
      String logVerifierKey,
      String cosignerVerifierKey,
      AdminView admin,
      InstanceHistory history,
      RoomHub rooms,
      AdminHub adminEvents,
      LedgerMetrics metrics,
      Tracing tracing,
      BooleanSupplier redisReady,
      BooleanSupplier sqlReady,
      String adminToken,
      long maxBodyBytes,
      int maxRecordsPerBatch,
      HttpLimits limits) {}

  private final Services s;
  private final ObjectMapper json;
  private final Requests requests;
  private final AdminToken adminToken;
  private final Javalin app;

  /** The listener's request threads; a batch's reply is written on one once its tick committed. */
  private final QueuedThreadPool threads;

  private final BatchRoute batches;
  private final Counter enrollmentFailures;
  private final SseClients streams = new SseClients(HEARTBEAT);
  private volatile Supplier<InstanceList> instances;
  private volatile Consumer<DamagedRowException> damage = d -> {};

  /**
   * Response header of the batch and log endpoints: the most batches of one device this instance
   * holds at once, so an agent keeps at most that many in flight (docs/architecture.md §5, "Batches
   * in flight"). Without it an agent keeps one.
   */
  public static final String BATCH_WINDOW_HEADER = "Danmaku-Batch-Window";

  /**
   * {@code Accept-Post} (W3C Linked Data Platform 1.0 §7.1) of the batch and log endpoints: the
   * media types a batch may be posted in, so an agent sends the binary body only to an instance
   * that takes it (docs/sync.md, "Binary batches").
   */
  public static final String ACCEPT_POST = "application/json, " + BinaryBatch.MEDIA_TYPE;

  /** Interval of the SSE comment heartbeat. */
  static final Duration HEARTBEAT = Duration.ofSeconds(15);

  public HttpApi(Services services, ObjectMapper json) {
    this.s = services;
    this.json = json;
    this.requests =
        new Requests(
            json,
            services.maxBodyBytes(),
            services.maxRecordsPerBatch(),
            new BodyAdmission(services.limits(), services.metrics().registry()));
    this.adminToken = new AdminToken(services.adminToken());
    this.enrollmentFailures =
        Counter.builder("danmaku.enrollment.failures")
            .description("enrolments refused for a wrong or missing enrolment token")
            .register(services.metrics().registry());
    Gauge.builder("danmaku.batches.held", services.ingest(), BatchIngest::batchesHeld)
        .description(
            "batches this instance holds now, those chained behind a batch of the same device"
                + " included (docs/architecture.md §5, \"Batches in flight\")")
        .register(services.metrics().registry());
    Gauge.builder("danmaku.sse.subscribers", streams, SseClients::size)
        .description("open SSE connections (room streams and admin events) on this instance")
        .register(services.metrics().registry());
    for (StreamRefusal why : StreamRefusal.values()) {
      FunctionCounter.builder("danmaku.sse.refused", services.rooms(), h -> h.refused(why))
          .description("room streams refused at a subscriber limit (docs/operations.md)")
          .tag("limit", why.name().toLowerCase(Locale.ROOT))
          .register(services.metrics().registry());
    }
    this.threads = JettySettings.threadPool(services.limits());
    this.batches =
        new BatchRoute(
            services.ingest(),
            services.signatureFailures(),
            services.tracing(),
            services.metrics(),
            requests,
            threads,
            new BatchRoute.Answers() {
              @Override
              public void json(Context ctx, int status, Object body) {
                send(ctx, status, body);
              }

              @Override
              public void problem(Context ctx, Exception e) {
                HttpApi.this.problem(ctx, e);
              }
            });
    this.app =
        Javalin.create(
            cfg ->
                JettySettings.configure(
                    cfg, services.limits(), services.maxBodyBytes(), json, threads));
    routes();
  }

  /** Hands every damaged stored row a request meets to {@code sink} (operator alerts). */
  public void reportingDamageTo(Consumer<DamagedRowException> sink) {
    this.damage = Objects.requireNonNull(sink, "sink");
  }

  /** Serves {@code GET /admin/instances} from {@code list} (the instance registry). */
  public void instances(Supplier<InstanceList> list) {
    this.instances = list;
  }

  /** Starts listening; returns the bound port. */
  public int start(String bind, int port) {
    app.start(bind, port);
    JettySettings.started(app, s.limits(), batches.completions());
    return app.port();
  }

  private void routes() {
    app.before(HttpApi::traceRequest);
    // RFC 7694: the request content codings every body of this API may come in
    app.before(ctx -> ctx.header("Accept-Encoding", BodyCoding.ACCEPTED));
    app.after(ctx -> MDC.remove(Tracing.MDC_KEY));
    app.exception(Exception.class, (e, ctx) -> problem(ctx, e));
    // Javalin answers its own HttpResponseExceptions unless a handler names that exact class
    app.exception(HttpResponseException.class, (e, ctx) -> problem(ctx, e));
    app.error(
        404,
        ctx -> {
          if (!ctx.res().isCommitted() && !Problem.MEDIA_TYPE.equals(ctx.res().getContentType())) {
            writeProblem(
                ctx,
                Problem.of(ErrorCode.NOT_FOUND, "no endpoint " + ctx.method() + " " + ctx.path())
                    .withInstance(ctx.path()),
                null);
          }
        });
    app.before("/admin/*", adminToken::require);

    get("/healthz", ctx -> ctx.contentType(JSON).result("{\"status\":\"UP\"}"));
    get("/readyz", this::ready);
    get(
        "/metrics",
        ctx ->
            ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                .result(s.metrics().scrape()));

    app.post("/v1/devices", this::enroll);
    String window = Integer.toString(s.ingest().batchWindow());
    for (String path : List.of("/v1/devices/{deviceId}/log", "/v1/devices/{deviceId}/batches")) {
      app.before(
          path, ctx -> ctx.header(BATCH_WINDOW_HEADER, window).header("Accept-Post", ACCEPT_POST));
    }
    get(
        "/v1/devices/{deviceId}/log",
        ctx -> send(ctx, 200, s.queries().log(Requests.deviceId(ctx))));
    app.post("/v1/devices/{deviceId}/batches", batches::handle);
    get(
        "/v1/devices/{deviceId}/acks",
        ctx ->
            send(
                ctx,
                200,
                s.queries()
                    .acks(
                        Requests.deviceId(ctx),
                        Requests.queryLong(ctx, "from", 0),
                        Requests.queryLong(ctx, "to"))));
    get(
        "/v1/devices/{deviceId}/proofs/inclusion",
        ctx ->
            send(
                ctx,
                200,
                s.queries()
                    .inclusion(
                        Requests.deviceId(ctx),
                        Requests.requiredLong(ctx, "index"),
                        Requests.queryLong(ctx, "size"),
                        adminToken.presentedBy(ctx))));
    get(
        "/v1/devices/{deviceId}/proofs/consistency",
        ctx ->
            send(
                ctx,
                200,
                s.queries()
                    .consistency(
                        Requests.deviceId(ctx),
                        Requests.requiredLong(ctx, "from"),
                        Requests.requiredLong(ctx, "to"))));
    get(
        "/v1/messages/by-id/{messageId}",
        ctx ->
            send(
                ctx,
                200,
                s.queries()
                    .messageById(
                        Requests.pathLong(ctx, "messageId"), adminToken.presentedBy(ctx))));
    get(
        "/v1/messages/{key}",
        ctx ->
            send(
                ctx,
                200,
                s.queries()
                    .messageByKey(Requests.idempotencyKey(ctx), adminToken.presentedBy(ctx))));
    get(
        "/v1/rooms/{room}/messages",
        ctx ->
            send(
                ctx,
                200,
                s.queries()
                    .room(
                        Requests.room(ctx),
                        Requests.queryLong(ctx, "after", 0),
                        Requests.limit(ctx, 100, LedgerQueries.MAX_PAGE),
                        adminToken.presentedBy(ctx))));
    get(
        "/v1/rooms/{room}/messages/{seq}",
        ctx ->
            send(
                ctx,
                200,
                s.queries()
                    .message(
                        Requests.room(ctx),
                        Requests.pathLong(ctx, "seq"),
                        adminToken.presentedBy(ctx))));
    new RoomStreamRoutes(s.rooms(), streams, this::toJson).register(app);
    new RoomLogRoutes(
            s.roomLogs(),
            s.auditBundles(),
            new RoomLogRoutes.ServerKeys(s.logVerifierKey(), s.cosignerVerifierKey()),
            adminToken)
        .register(this::get, (ctx, body) -> send(ctx, 200, body));

    get("/admin/overview", ctx -> send(ctx, 200, s.admin().overview()));
    get("/admin/devices", ctx -> send(ctx, 200, s.admin().devices()));
    get(
        "/admin/devices/{deviceId}/key",
        ctx -> send(ctx, 200, s.queries().key(Requests.deviceId(ctx))));
    get("/admin/rooms", ctx -> send(ctx, 200, s.admin().rooms()));
    get("/admin/review", ctx -> send(ctx, 200, s.admin().review(Requests.limit(ctx, 200, 1000))));
    app.post(
        "/admin/review/{messageId}",
        ctx -> {
          long id = Requests.pathLong(ctx, "messageId");
          ReviewDecision d = requests.reviewDecision(ctx);
          boolean approve = ReviewDecision.APPROVE.equals(d.decision());
          send(
              ctx,
              200,
              AdminView.reviewItem(s.review().decide(id, approve, d.version(), d.reason())));
        });
    get("/admin/alerts", ctx -> send(ctx, 200, s.admin().alerts(Requests.limit(ctx, 100, 1000))));
    app.sse("/admin/events", this::adminEvents);
    get("/admin/instances", this::listInstances);
    get("/admin/history", ctx -> send(ctx, 200, s.history().last(Requests.historyMinutes(ctx))));
  }

  /** Serves GET and HEAD alike (RFC 9110 §9.3.2): Jetty sends no body for HEAD. */
  private void get(String path, Handler handler) {
    app.get(path, handler);
    app.head(path, handler);
  }

  /**
   * Enrolment. A wrong token is a failed authentication of the client address: counted in {@code
   * danmaku_enrollment_failures_total} and limited per address together with failed batch
   * authentications (docs/security.md, "Failed authentication and rate limits").
   */
  private void enroll(Context ctx) {
    String address = Requests.address(ctx);
    s.signatureFailures().admit(address);
    Requests.Enrollment e = requests.enrollment(ctx);
    try {
      send(ctx, 200, s.enroller().enroll(e.deviceId(), e.publicKey(), e.token()));
    } catch (LedgerException refused) {
      if (refused.code() == ErrorCode.FORBIDDEN) {
        enrollmentFailures.increment();
        s.signatureFailures().unknownDevice(address);
      }
      throw refused;
    }
  }

  /** Context attribute of the request's parsed {@code traceparent} (an Optional). */
  static final String PARENT_ATTRIBUTE = "danmaku.traceparent";

  /** Context attribute of the request's trace id, named in its problem body. */
  static final String TRACE_ATTRIBUTE = "danmaku.traceId";

  /**
   * Reads the W3C {@code traceparent} of every request (ignoring a malformed one) and names the
   * request's trace id in the MDC, so that log lines and problem bodies carry it.
   */
  private static void traceRequest(Context ctx) {
    var parent = TraceParent.parse(ctx.header(TraceParent.HEADER));
    ctx.attribute(PARENT_ATTRIBUTE, parent);
    String traceId =
        parent.map(TraceParent::traceId).orElseGet(() -> TraceParent.random().traceId());
    ctx.attribute(TRACE_ATTRIBUTE, traceId);
    MDC.put(Tracing.MDC_KEY, traceId);
  }

  /**
   * Refuses new batches, waits up to {@code grace} for batches in flight to finish, then stops the
   * listener.
   */
  public void stop(Duration grace) {
    batches.drain(grace);
    streams.close();
    app.stop();
  }

  private void adminEvents(SseClient client) {
    client.keepAlive();
    streams.track(client);
    streams.add(
        client,
        s.adminEvents()
            .subscribe(
                (AdminEvent e) -> {
                  String data = toJson(e);
                  streams.write(
                      client,
                      c -> {
                        if (!c.terminated()) {
                          c.sendEvent(e.type().name(), data);
                        }
                      });
                }));
    streams.write(client, c -> c.sendComment("connected"));
  }

  private void listInstances(Context ctx) {
    Supplier<InstanceList> list = instances;
    InstanceList reply;
    try {
      if (list == null) {
        throw new IllegalStateException("instance registry: got none, want one");
      }
      reply = list.get();
    } catch (RuntimeException e) {
      log.warn("instance registry unreadable: {}", e.toString());
      writeProblem(
          ctx,
          Problem.of(
                  ErrorCode.REDIS_UNAVAILABLE,
                  "the instance registry in Redis cannot be read; retry later")
              .withInstance(ctx.path()),
          Problems.RETRY_AFTER_SECONDS);
      return;
    }
    send(ctx, 200, reply);
  }

  private void ready(Context ctx) {
    boolean redis = s.redisReady().getAsBoolean();
    boolean sql = s.sqlReady().getAsBoolean();
    if (redis && sql) {
      ctx.contentType(JSON).result("{\"status\":\"READY\",\"redis\":\"UP\",\"sql\":\"UP\"}");
      return;
    }
    ErrorCode code = !redis ? ErrorCode.REDIS_UNAVAILABLE : ErrorCode.SQL_UNAVAILABLE;
    Map<String, Object> ext = new LinkedHashMap<>();
    ext.put("redis", redis ? "UP" : "DOWN");
    ext.put("sql", sql ? "UP" : "DOWN");
    writeProblem(
        ctx,
        new LedgerException(
                code, "not ready: redis " + ext.get("redis") + ", sql " + ext.get("sql"), ext)
            .problem()
            .withInstance(ctx.path()),
        Problems.RETRY_AFTER_SECONDS);
  }

  private void send(Context ctx, int status, Object body) {
    byte[] bytes;
    try {
      bytes = json.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw cannotSerialise(body, e);
    }
    ctx.status(status).contentType(JSON).result(bytes);
  }

  private String toJson(Object body) {
    try {
      return json.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw cannotSerialise(body, e);
    }
  }

  private static IllegalStateException cannotSerialise(Object body, JsonProcessingException e) {
    return new IllegalStateException("cannot serialise " + body.getClass().getSimpleName(), e);
  }

  private void problem(Context ctx, Exception e) {
    String traceId = ctx.attribute(TRACE_ATTRIBUTE);
    if (traceId != null) {
      MDC.put(Tracing.MDC_KEY, traceId);
    }
    DamagedRowException damaged = DamagedRowException.in(e);
    if (damaged != null) {
      damage.accept(damaged);
    }
    if (e instanceof MethodNotAllowedResponse m) {
      ctx.header("Allow", allowed(m));
    }
    Problems.Mapped m = Problems.map(e, ctx.path(), traceId);
    writeProblem(ctx, m.problem(), m.retryAfterSeconds());
  }

  private void writeProblem(Context ctx, Problem p, Integer retryAfterSeconds) {
    if (retryAfterSeconds != null) {
      ctx.header("Retry-After", Integer.toString(retryAfterSeconds));
    }
    String traceId = ctx.attribute(TRACE_ATTRIBUTE);
    Problem body = traceId == null ? p : p.with(Tracing.MDC_KEY, traceId);
    byte[] bytes;
    try {
      bytes = json.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw cannotSerialise(body, e);
    }
    ctx.status(p.status()).contentType(Problem.MEDIA_TYPE).result(bytes);
  }

  /** The methods Javalin found for the path, as an {@code Allow} value (RFC 9110 §10.2.1). */
  private static String allowed(MethodNotAllowedResponse m) {
    for (Map.Entry<String, String> d : m.getDetails().entrySet()) {
      if (d.getKey().equalsIgnoreCase("availableMethods")
          || d.getKey().equalsIgnoreCase("Available methods")) {
        return d.getValue();
      }
    }
    return "";
  }
}
