package dev.danmakuledger.ui.app;

import dev.danmakuledger.ui.alerts.AlertsViewModel;
import dev.danmakuledger.ui.client.AdminClient;
import dev.danmakuledger.ui.client.Endpoint;
import dev.danmakuledger.ui.client.ReconnectDelays;
import dev.danmakuledger.ui.devices.DevicesViewModel;
import dev.danmakuledger.ui.history.HistoryStore;
import dev.danmakuledger.ui.inspector.InspectorViewModel;
import dev.danmakuledger.ui.instances.InstancesViewModel;
import dev.danmakuledger.ui.live.Async;
import dev.danmakuledger.ui.live.ConnectionViewModel;
import dev.danmakuledger.ui.live.ConsoleContext;
import dev.danmakuledger.ui.live.LiveUpdates;
import dev.danmakuledger.ui.overview.OverviewViewModel;
import dev.danmakuledger.ui.review.ReviewViewModel;
import dev.danmakuledger.ui.roomlog.RoomLogsViewModel;
import dev.danmakuledger.ui.rooms.RoomsViewModel;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.application.Platform;
import okhttp3.OkHttpClient;

/**
 * The console's object graph, wired by constructors: one HTTP client, the executors, the history,
 * the view-models and the live-update loop. Views are built from it by {@link ConsoleWindow}.
 */
final class ConsoleApp implements AutoCloseable {
  private final OkHttpClient http;
  private final ExecutorService background;
  private final ScheduledExecutorService poller;
  private final ScheduledExecutorService streamer;
  private final ScheduledExecutorService roomStreamer;
  private final HistoryStore history;
  private final Path configFile;
  private final Async async;
  private final ConsoleContext context;
  private final LiveUpdates live;
  final OverviewViewModel overview;
  final DevicesViewModel devices;
  final RoomsViewModel rooms;
  final RoomLogsViewModel roomLogs;
  final ReviewViewModel review;
  final InspectorViewModel inspector;
  final AlertsViewModel alerts;
  final InstancesViewModel instances;

  /**
   * @param endpoint the server and admin token
   * @param history the local history; closed with the app
   * @param pollEvery period of the full refresh
   * @param clock time for the banner, the charts and the history
   * @param configFile where the settings dialog remembers settings, or null
   */
  public ConsoleApp(
      Endpoint endpoint, HistoryStore history, Duration pollEvery, Clock clock, Path configFile) {
    this.configFile = configFile;
    this.http =
        new OkHttpClient.Builder()
            .connectTimeout(Duration.ofSeconds(3))
            .readTimeout(Duration.ofSeconds(10))
            .callTimeout(Duration.ofSeconds(20))
            .build();
    this.background = Executors.newFixedThreadPool(2, daemon("console-io"));
    this.poller = Executors.newSingleThreadScheduledExecutor(daemon("console-poll"));
    this.streamer = Executors.newSingleThreadScheduledExecutor(daemon("console-events"));
    this.roomStreamer = Executors.newSingleThreadScheduledExecutor(daemon("console-room"));
    this.history = history;
    AdminClient client = new AdminClient(http, endpoint);
    ConnectionViewModel connection = new ConnectionViewModel(clock, endpoint.baseUrl().toString());
    this.async = new Async(background, Platform::runLater);
    this.context = new ConsoleContext(client, async, connection, history, clock);
    this.overview = new OverviewViewModel(context);
    this.devices = new DevicesViewModel(context);
    this.rooms = new RoomsViewModel(context, roomStreamer);
    this.review = new ReviewViewModel(context);
    this.inspector = new InspectorViewModel(context);
    this.roomLogs = new RoomLogsViewModel(context, rooms.rooms());
    this.alerts = new AlertsViewModel(context, roomLogs.alerts());
    this.instances = new InstancesViewModel(context);
    this.live =
        new LiveUpdates(
            context,
            poller,
            streamer,
            pollEvery,
            new ReconnectDelays(Duration.ofMillis(500), Duration.ofSeconds(30)),
            List.of(overview, devices, rooms, roomLogs, review, alerts, instances));
  }

  public ConnectionViewModel connection() {
    return context.connection();
  }

  ConsoleContext context() {
    return context;
  }

  Path configFile() {
    return configFile;
  }

  LiveUpdates live() {
    return live;
  }

  /** Builds the window's content. Call on the FX thread. */
  public ConsoleWindow window() {
    return new ConsoleWindow(this);
  }

  /** Starts restoring, polling and following live events. Call on the FX thread. */
  public void start() {
    live.start();
  }

  @Override
  public void close() {
    async.close();
    live.close();
    rooms.close();
    poller.shutdownNow();
    streamer.shutdownNow();
    roomStreamer.shutdownNow();
    background.shutdown();
    try {
      if (!background.awaitTermination(3, TimeUnit.SECONDS)) {
        background.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
    history.close();
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
