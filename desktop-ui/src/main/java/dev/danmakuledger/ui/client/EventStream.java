package dev.danmakuledger.ui.client;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live admin event feed, {@code GET /admin/events} (server-sent events, one JSON {@link
 * AdminEvent} per event), kept open for as long as the console runs: after any failure it
 * reconnects with exponential {@link Backoff}. Reading blocks the scheduler thread it runs on, so
 * give it a scheduler of its own. Listener calls come from that thread.
 */
public final class EventStream implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventStream.class);
  static final int MAX_LINE_BYTES = 256 * 1024;
  static final int MAX_EVENT_CHARS = 256 * 1024;

  /** Receives the stream's life: connections, events, losses. */
  public interface Listener {
    void connected();

    void event(AdminEvent event);

    void disconnected(ApiException cause, Duration retryIn);
  }

  private final AdminClient client;
  private final OkHttpClient streaming;
  private final ScheduledExecutorService scheduler;
  private final Backoff backoff;
  private final Listener listener;
  private final AtomicReference<Call> current = new AtomicReference<>();
  private volatile boolean closed;

  /**
   * @param client supplies the endpoint, token and the shared HTTP client (whose connection pool
   *     and dispatcher the stream reuses, without a read timeout)
   * @param scheduler runs the blocking reads and the delayed reconnects
   * @param backoff reconnect delays
   * @param listener told about every connection, event and loss
   */
  public EventStream(
      AdminClient client, ScheduledExecutorService scheduler, Backoff backoff, Listener listener) {
    this.client = client;
    this.streaming = client.http().newBuilder().readTimeout(Duration.ZERO).build();
    this.scheduler = scheduler;
    this.backoff = backoff;
    this.listener = listener;
  }

  /** Opens the stream in the background. */
  public void start() {
    scheduler.execute(this::attempt);
  }

  /** Drops the current connection at once; a reconnect follows after the next backoff delay. */
  public void restart() {
    Call call = current.get();
    if (call != null) {
      call.cancel();
    }
  }

  @Override
  public void close() {
    closed = true;
    Call call = current.getAndSet(null);
    if (call != null) {
      call.cancel();
    }
  }

  private void attempt() {
    if (closed) {
      return;
    }
    Request request =
        client
            .authorized(client.url("admin", "events"))
            .header("Accept", "text/event-stream")
            .get()
            .build();
    Call call = streaming.newCall(request);
    current.set(call);
    ApiException failure;
    try (Response response = call.execute()) {
      if (!response.isSuccessful()) {
        throw client.failure(request, response);
      }
      backoff.reset();
      listener.connected();
      failure = read(response.body());
    } catch (ApiException e) {
      failure = e;
    } catch (IOException e) {
      failure = lost("GET /admin/events: " + e, e);
    }
    if (closed) {
      return;
    }
    Duration delay = backoff.next();
    log.debug("event stream lost ({}); reconnecting in {}", failure.getMessage(), delay);
    listener.disconnected(failure, delay);
    scheduler.schedule(this::attempt, delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private ApiException read(ResponseBody body) throws IOException {
    if (body == null) {
      return lost("GET /admin/events: no body", null);
    }
    SseParser parser = new SseParser(MAX_EVENT_CHARS);
    BufferedSource source = body.source();
    while (!closed) {
      String line;
      try {
        line = source.readUtf8LineStrict(MAX_LINE_BYTES);
      } catch (EOFException e) {
        String why = source.exhausted() ? "stream ended" : "line longer than " + MAX_LINE_BYTES;
        return lost("GET /admin/events: " + why, e);
      }
      Optional<SseEvent> event = parser.line(line);
      event.ifPresent(this::dispatch);
    }
    return lost("GET /admin/events: closed", null);
  }

  private void dispatch(SseEvent sse) {
    AdminEvent event;
    try {
      event = client.mapper().readValue(sse.data(), AdminEvent.class);
    } catch (IOException | RuntimeException e) {
      log.warn("ignoring unreadable admin event '{}': {}", sse.name(), e.getMessage());
      return;
    }
    if (event == null) {
      log.warn("ignoring admin event '{}' with null data", sse.name());
      return;
    }
    listener.event(event);
  }

  private ApiException lost(String detail, Throwable cause) {
    return new ApiException(
        ApiException.Kind.UNREACHABLE,
        0,
        "Lost the live event stream from " + client.endpoint().baseUrl() + ".",
        detail,
        cause);
  }
}
