package dev.danmakuledger.ui.live;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.ui.client.ApiException;
import dev.danmakuledger.ui.client.Endpoint;
import dev.danmakuledger.ui.client.EventStream;
import dev.danmakuledger.ui.client.ReconnectDelays;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Keeps every view current (docs/console.md, "What stays current, and what happens when the server
 * is gone"): restores the last state from the history, polls the server at a fixed period (which is
 * also how an outage is noticed and how it ends), and follows {@code /admin/events} for immediate
 * updates, reconnecting with backoff.
 */
public final class LiveUpdates implements AutoCloseable {
  private final ConsoleContext context;
  private final ScheduledExecutorService poller;
  private final Duration pollEvery;
  private final List<LiveFeed> feeds;
  private final EventStream<AdminEvent> stream;
  private ScheduledFuture<?> polling;

  /**
   * @param poller schedules the periodic refresh
   * @param streamer runs the blocking event stream; not shared with {@code poller}
   * @param pollEvery period of the full refresh
   * @param backoff reconnect delays of the event stream
   * @param feeds the view-models to keep current
   */
  public LiveUpdates(
      ConsoleContext context,
      ScheduledExecutorService poller,
      ScheduledExecutorService streamer,
      Duration pollEvery,
      ReconnectDelays backoff,
      List<LiveFeed> feeds) {
    this.context = context;
    this.poller = poller;
    this.pollEvery = pollEvery;
    this.feeds = List.copyOf(feeds);
    this.stream = context.client().adminEvents(streamer, backoff, new Listener());
  }

  /** Restores, loads, and starts polling and the event stream. Call on the UI thread. */
  public void start() {
    feeds.forEach(LiveFeed::restore);
    refreshAll();
    polling =
        poller.scheduleWithFixedDelay(
            () -> context.async().ui(this::refreshAll),
            pollEvery.toMillis(),
            pollEvery.toMillis(),
            TimeUnit.MILLISECONDS);
    stream.start();
  }

  /** Reloads every view now. Call on the UI thread. */
  public void refreshAll() {
    feeds.forEach(LiveFeed::refresh);
  }

  /** Switches to another server or token and reloads. Call on the UI thread. */
  public void reconnect(Endpoint endpoint) {
    context.client().reconnect(endpoint);
    context.connection().reconfigured(endpoint.baseUrl().toString());
    stream.restart();
    refreshAll();
  }

  @Override
  public void close() {
    if (polling != null) {
      polling.cancel(false);
    }
    stream.close();
  }

  private final class Listener implements EventStream.Listener<AdminEvent> {
    @Override
    public void connected() {
      context.async().ui(context.connection()::eventsConnected);
    }

    @Override
    public void event(AdminEvent event) {
      context.async().ui(() -> feeds.forEach(f -> f.onEvent(event)));
    }

    @Override
    public void disconnected(ApiException cause, Duration retryIn) {
      context.async().ui(() -> context.connection().eventsLost(cause, retryIn));
    }
  }
}
