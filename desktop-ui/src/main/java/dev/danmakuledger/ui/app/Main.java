package dev.danmakuledger.ui.app;

import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.ui.client.Endpoint;
import dev.danmakuledger.ui.history.HistoryException;
import dev.danmakuledger.ui.history.HistoryStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/console}: the operator console (docs/architecture.md §8). Not a JavaFX {@code
 * Application} subclass, so it starts with JavaFX on the class path; it starts the toolkit itself,
 * wires the object graph and shows the window, or with {@code --screenshot} renders one view to a
 * PNG and exits.
 */
@Command(
    name = "console",
    mixinStandardHelpOptions = true,
    description = "Danmaku Ledger operator console.")
public final class Main implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(Main.class);

  @Option(names = "--server", description = "Sync server base URL, e.g. http://127.0.0.1:8080")
  String server;

  @Option(names = "--token-file", description = "File holding the admin token (one line)")
  Path tokenFile;

  @Option(
      names = "--config",
      description = "Settings file (default: ${DEFAULT-VALUE})",
      defaultValue = "${sys:user.home}/.danmaku-ledger/console.properties")
  Path config;

  @Option(
      names = "--history-dir",
      description = "Local history directory (default: ${DEFAULT-VALUE})",
      defaultValue = "${sys:user.home}/.danmaku-ledger/console")
  Path historyDir;

  @Option(names = "--screenshot", description = "Render --view to this PNG and exit")
  Path screenshot;

  @Option(
      names = "--view",
      description =
          "overview, devices, rooms, review, inspector, alerts or instances (default: overview)",
      defaultValue = "overview")
  String view;

  @Option(
      names = "--inspect",
      description = "Inspector lookup for --view inspector (default: the newest message)")
  String inspect;

  @Option(names = "--width", defaultValue = "1440", description = "Window width")
  int width;

  @Option(names = "--height", defaultValue = "900", description = "Window height")
  int height;

  @Option(names = "--poll-seconds", defaultValue = "2", description = "Refresh period")
  int pollSeconds;

  @Option(
      names = "--settle-seconds",
      defaultValue = "3",
      description = "Screenshot: wait after the data arrived")
  int settleSeconds;

  @Option(
      names = "--timeout-seconds",
      defaultValue = "30",
      description = "Screenshot: give up waiting for data")
  int timeoutSeconds;

  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).execute(args));
  }

  @Override
  public Integer call() throws IOException {
    ViewName first;
    try {
      first = ViewName.parse(view);
    } catch (IllegalArgumentException e) {
      System.err.println("console: " + e.getMessage());
      return 2;
    }
    if (pollSeconds < 1 || width < 200 || height < 200) {
      System.err.println("console: want --poll-seconds >= 1 and a window of at least 200x200");
      return 2;
    }
    Optional<Endpoint> endpoint;
    try {
      endpoint = ConsoleSettings.resolve(server, tokenFile, config);
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("console: " + e.getMessage());
      return 2;
    }
    if (screenshot != null && endpoint.isEmpty()) {
      System.err.println(
          "console: --screenshot needs --server and --token-file (or both in " + config + ")");
      return 2;
    }
    Optional<String> noDisplay = NoDisplay.reason(System.getenv(), System.getProperties());
    if (noDisplay.isPresent()) {
      System.err.println("console: " + noDisplay.get());
      return 2;
    }
    HistoryStore history = openHistory();
    CompletableFuture<Integer> exit = new CompletableFuture<>();
    Platform.setImplicitExit(false);
    try {
      Platform.startup(
          () -> {
            try {
              show(endpoint, history, first, exit);
            } catch (RuntimeException e) {
              log.error("console failed to start", e);
              exit.complete(1);
            }
          });
    } catch (RuntimeException e) {
      history.close();
      System.err.println(
          "console: JavaFX could not start (" + e.getMessage() + "). " + NoDisplay.HINT);
      return 2;
    }
    int code = exit.join();
    Platform.exit();
    return code;
  }

  private HistoryStore openHistory() {
    try {
      Files.createDirectories(historyDir);
      return HistoryStore.open(historyDir, Json.mapper());
    } catch (IOException | HistoryException e) {
      log.warn(
          "cannot use the history in {} ({}); charts and last state will not survive a restart",
          historyDir,
          e.getMessage());
      return HistoryStore.inMemory(Json.mapper());
    }
  }

  private void show(
      Optional<Endpoint> configured,
      HistoryStore history,
      ViewName first,
      CompletableFuture<Integer> exit) {
    Optional<Endpoint> endpoint =
        configured.isPresent() ? configured : SettingsDialog.ask(null, null, config);
    if (endpoint.isEmpty()) {
      history.close();
      exit.complete(0);
      return;
    }
    ConsoleApp app =
        new ConsoleApp(
            endpoint.get(),
            history,
            Duration.ofSeconds(pollSeconds),
            Clock.systemDefaultZone(),
            config);
    ConsoleWindow window = app.window();
    Scene scene = new Scene(window, width, height);
    Stage stage = new Stage();
    stage.setTitle("Danmaku Ledger console — " + endpoint.get().baseUrl());
    stage.setScene(scene);
    stage.setOnHidden(
        e -> {
          app.close();
          exit.complete(0);
        });
    window.select(first);
    stage.show();
    app.start();
    if (screenshot != null) {
      CompletableFuture<Integer> shot = new CompletableFuture<>();
      shot.thenAccept(
          code ->
              Platform.runLater(
                  () -> {
                    exit.complete(code);
                    stage.hide();
                  }));
      new Screenshot(
              app,
              scene,
              first,
              inspect,
              screenshot,
              Duration.ofSeconds(settleSeconds),
              Duration.ofSeconds(timeoutSeconds),
              shot)
          .start();
    }
  }
}
