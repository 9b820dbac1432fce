package dev.danmakuledger.ui.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.ui.client.Endpoint;
import dev.danmakuledger.ui.history.HistoryStore;
import dev.danmakuledger.ui.live.ConnectionViewModel.State;
import dev.danmakuledger.ui.testing.Display;
import dev.danmakuledger.ui.testing.Ledger;
import dev.danmakuledger.ui.testing.ServerLoader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * Clicks through every view of the console against a real sync server (embedded Redis and H2)
 * started in the test and fed real signed batches from three devices, plus a forked checkpoint.
 */
@ExtendWith(ApplicationExtension.class)
class ConsoleServerIT {
  @TempDir static Path dataDir;
  private static SyncServer server;
  private static Ledger ledger;
  private ConsoleApp app;

  @BeforeAll
  static void startServer() {
    server =
        SyncServer.start(
            ServerConfig.builder(dataDir)
                .reviewRule(Pattern.compile("合影"))
                .bannedWords(List.of("asd"))
                .build());
    ledger = Ledger.standard();
    OkHttpClient http = new OkHttpClient();
    ServerLoader loader = new ServerLoader(http, HttpUrl.get(server.baseUri()));
    for (Ledger.Device d : ledger.devices.values()) {
      loader.enroll(d, server.enrollToken());
      loader.push(d, 0, 10);
      loader.push(d, 10, (int) d.size());
    }
    int forked = loader.fork(ledger.devices.get("stb-7"));
    assertEquals(409, forked, "a forked checkpoint must be refused");
    http.dispatcher().executorService().shutdown();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Start
  void start(Stage stage) {
    app =
        new ConsoleApp(
            new Endpoint(HttpUrl.get(server.baseUri()), server.adminToken()),
            HistoryStore.inMemory(Json.mapper()),
            Duration.ofSeconds(1),
            Clock.systemUTC(),
            null);
    stage.setScene(new Scene(app.window(), 1280, 800));
    stage.show();
    app.start();
  }

  @AfterEach
  void stop() {
    app.close();
  }

  private static Node row(FxRobot robot, String table, int n) {
    return robot.lookup(table + " .table-row-cell").nth(n).queryAs(Node.class);
  }

  @Test
  void clicksThroughEveryViewAgainstARealServer(FxRobot robot) {
    Display.await("the console is live", () -> app.connection().state().get() == State.LIVE);
    Display.await(
        "live events connected",
        () -> app.connection().events().get().equals("Live events: connected"));

    robot.clickOn("#tab-overview");
    Display.await(
        "the overview counts every record",
        () -> {
          var o = app.overview.overview().get();
          return o != null && o.outcomes().values().stream().mapToLong(Long::longValue).sum() >= 72;
        });
    assertTrue(app.overview.overview().get().forks() >= 1);

    robot.clickOn("#tab-devices");
    TableView<DeviceSummary> devices = robot.lookup("#devices-table").queryTableView();
    Display.await("three devices", () -> devices.getItems().size() == 3);
    robot.clickOn("#device-filter").write("kiosk");
    Display.await("two kiosks", () -> devices.getItems().size() == 2);
    assertTrue(devices.getItems().stream().allMatch(d -> d.verifiedSize() == 24));

    robot.clickOn("#tab-rooms");
    ListView<RoomMessage> tail = robot.lookup("#room-tail").queryListView();
    Display.await("the tail fills", () -> !tail.getItems().isEmpty());
    assertTrue(tail.getItems().stream().allMatch(m -> m.status() == RoomMessage.Status.CONFIRMED));
    assertTrue(tail.getItems().stream().anyMatch(m -> m.text().contains("弹幕")));

    robot.clickOn("#tab-review");
    TableView<ReviewItem> review = robot.lookup("#review-table").queryTableView();
    Display.await("messages held for review", () -> !review.getItems().isEmpty());
    int held = review.getItems().size();
    robot.clickOn(row(robot, "#review-table", 0));
    robot.clickOn("#review-approve");
    Label result = robot.lookup("#review-message").queryAs(Label.class);
    Display.await("approved", () -> result.getText().startsWith("Approved "));
    Display.await("the queue shrinks", () -> review.getItems().size() == held - 1);

    robot.clickOn("#tab-inspector");
    RoomMessage m = tail.getItems().get(tail.getItems().size() - 1);
    robot.clickOn("#inspector-query").write(m.messageId());
    robot.clickOn("#inspector-lookup");
    Display.await(
        "a locally verified proof",
        () ->
            robot
                .lookup("#verdict-headline")
                .tryQuery()
                .map(n -> ((Label) n).getText().startsWith("Verified: leaf #" + m.deviceIndex()))
                .orElse(false));

    robot.clickOn("#tab-alerts");
    TableView<AdminEvent> alerts = robot.lookup("#alerts-table").queryTableView();
    Display.await(
        "the fork alert",
        () ->
            alerts.getItems().stream()
                .anyMatch(
                    a ->
                        "stb-7".equals(a.deviceId())
                            && a.severity() == AdminEvent.Severity.CRITICAL));
    TableColumn<AdminEvent, ?> trace =
        alerts.getColumns().stream()
            .filter(c -> "alert-trace".equals(c.getId()))
            .findFirst()
            .orElseThrow();
    int fork = 0;
    while (!"stb-7".equals(alerts.getItems().get(fork).deviceId())) {
      fork++;
    }
    String traceId = String.valueOf(trace.getCellData(fork));
    assertTrue(
        traceId.matches("[0-9a-f]{32}"), "the fork alert names its batch's trace: " + traceId);
  }
}
