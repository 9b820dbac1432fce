package dev.danmakuledger.ui.client;

import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server-sent event feed of JSON values (WHATWG HTML §9.2) kept open for as long as the console
 * wants it: the admin feed {@code GET /admin/events} (one {@code AdminEvent} per event) or a room
 * feed {@code GET /v1/rooms/{room}/stream} (one {@code RoomMessage} per event, id = seq). After any
 * failure it reconnects with exponential {@link ReconnectDelays}, sending the last event id it saw
 * as {@code Last-Event-ID}. Reading blocks the scheduler thread it runs on, so give it a scheduler
 * of its own. Listener calls come from that thread. Events whose data is not a {@code T} are logged
 * and skipped.
 *
 * @param <T> the JSON type of each event's data
 */
public final class EventStream<T> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventStream.class);
  static final int MAX_LINE_BYTES = 256 * 1024;
  static final int MAX_EVENT_CHARS = 256 * 1024;

  /** Receives the stream's life: connections, events, losses. */
  public interface Listener<T> {
    void connected();

    void event(T event);

    void disconnected(ApiException cause, Duration retryIn);
  }

  private final AdminClient client;
  private final OkHttpClient streaming;
  private final Supplier<HttpUrl> url;
  private final Class<T> type;
  private final ScheduledExecutorService scheduler;
  private final ReconnectDelays backoff;
  private final Listener<T> listener;
  private final AtomicReference<Call> current = new AtomicReference<>();
  private volatile String lastEventId;
  private volatile boolean closed;

  /**
   * @param client supplies the endpoint, token and the shared HTTP client (whose connection pool
   *     and dispatcher the stream reuses, without a read timeout)
   * @param url the feed's URL, asked again before every (re)connection
   * @param type what each event's data decodes to
   * @param scheduler runs the blocking reads and the delayed reconnects
   * @param backoff reconnect delays
   * @param listener told about every connection, event and loss
   */
  EventStream(
      AdminClient client,
      Supplier<HttpUrl> url,
      Class<T> type,
      ScheduledExecutorService scheduler,
      ReconnectDelays backoff,
      Listener<T> listener) {
    this.client = client;
    this.streaming = client.http().newBuilder().readTimeout(Duration.ZERO).build();
    this.url = url;
    this.type = type;
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
    Request.Builder builder =
        client.authorized(url.get()).header("Accept", "text/event-stream").get();
    String resumeAfter = lastEventId;
    if (resumeAfter != null && !resumeAfter.isEmpty()) {
      builder.header("Last-Event-ID", resumeAfter);
    }
    Request request = builder.build();
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
      failure = lost(request.url().encodedPath() + ": " + e, e);
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
      return lost("no body", null);
    }
    SseParser parser = new SseParser(MAX_EVENT_CHARS);
    BufferedSource source = body.source();
    while (!closed) {
      String line;
      try {
        line = source.readUtf8LineStrict(MAX_LINE_BYTES);
      } catch (EOFException e) {
        String why = source.exhausted() ? "stream ended" : "line longer than " + MAX_LINE_BYTES;
        return lost(why, e);
      }
      Optional<SseEvent> event = parser.line(line);
      event.ifPresent(this::dispatch);
    }
    return lost("closed", null);
  }

  private void dispatch(SseEvent sse) {
    if (sse.id() != null) {
      lastEventId = sse.id();
    }
    T event;
    try {
      event = client.mapper().readValue(sse.data(), type);
    } catch (IOException | RuntimeException e) {
      log.warn("ignoring unreadable '{}' event: {}", sse.name(), e.getMessage());
      return;
    }
    if (event == null) {
      log.warn("ignoring '{}' event with null data", sse.name());
      return;
    }
    listener.event(event);
  }

  private ApiException lost(String detail, Throwable cause) {
    return new ApiException(
        ApiException.Kind.UNREACHABLE,
        0,
        "Lost the live event stream from " + client.endpoint().baseUrl() + ".",
        url.get().encodedPath() + ": " + detail,
        cause);
  }
}
