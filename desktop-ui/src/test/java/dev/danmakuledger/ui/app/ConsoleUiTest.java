package dev.danmakuledger.ui.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import dev.danmakuledger.ui.client.Endpoint;
import dev.danmakuledger.ui.history.HistoryStore;
import dev.danmakuledger.ui.instances.InstanceRow;
import dev.danmakuledger.ui.live.ConnectionViewModel.State;
import dev.danmakuledger.ui.review.ReviewViewModel;
import dev.danmakuledger.ui.testing.Display;
import dev.danmakuledger.ui.testing.FixtureApi;
import dev.danmakuledger.ui.testing.Ledger;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javafx.css.PseudoClass;
import javafx.scene.Scene;
import javafx.scene.chart.LineChart;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * Clicks through every view of the real console window against the fixture API (contract-shaped
 * JSON from a cryptographically real ledger) served by MockWebServer.
 */
@ExtendWith(ApplicationExtension.class)
class ConsoleUiTest {
  static final PseudoClass STUCK = PseudoClass.getPseudoClass("stuck");

  private MockWebServer server;
  private FixtureApi api;
  private ConsoleApp app;

  @Start
  void start(Stage stage) throws IOException {
    server = new MockWebServer();
    api = new FixtureApi(Ledger.standard(), Clock.systemUTC());
    server.setDispatcher(api);
    server.start();
    app =
        new ConsoleApp(
            new Endpoint(server.url("/"), FixtureApi.TOKEN),
            HistoryStore.inMemory(Json.mapper()),
            Duration.ofSeconds(1),
            Clock.systemUTC(),
            null);
    stage.setScene(new Scene(app.window(), 1280, 800));
    stage.show();
    app.start();
  }

  @AfterEach
  void stop() throws IOException {
    app.close();
    server.shutdown();
  }

  private static <T> TableView<T> table(FxRobot robot, String id) {
    return robot.lookup(id).queryTableView();
  }

  @Test
  void clicksThroughEveryView(FxRobot robot) {
    Display.await("the console is live", () -> app.connection().state().get() == State.LIVE);

    robot.clickOn("#tab-overview");
    Display.await("overview cards show", () -> robot.lookup("#card-forks").tryQuery().isPresent());
    LineChart<?, ?> chart = robot.lookup("#throughput-chart").queryAs(LineChart.class);
    Display.await(
        "the server's last hour is charted, split where no instance sampled",
        () ->
            chart.getData().size() == 2
                && chart.getData().stream().mapToInt(x -> x.getData().size()).sum() >= 54);

    Display.await(
        "counted panels draw their bars instead of saying none yet",
        () ->
            robot.lookup("#rejects-chart").query().isVisible()
                && !robot.lookup("#rejects-chart-none").query().isVisible());

    robot.clickOn("#tab-devices");
    TableView<DeviceSummary> devices = table(robot, "#devices-table");
    Display.await("five devices", () -> devices.getItems().size() == 5);
    Display.await(
        "phone-12's row is highlighted as STUCK, no other",
        () ->
            robot.lookup("#devices-table .table-row-cell").queryAll().stream()
                .map(n -> (TableRow<?>) n)
                .filter(r -> r.getPseudoClassStates().contains(STUCK))
                .map(r -> ((DeviceSummary) r.getItem()).deviceId())
                .toList()
                .equals(List.of("phone-12")));
    Label attention = robot.lookup("#devices-attention").queryAs(Label.class);
    assertTrue(attention.getText().contains("1 stuck"), attention.getText());
    robot.clickOn("#device-filter").write("fork");
    Display.await("the filter leaves venue-3", () -> devices.getItems().size() == 1);
    assertEquals("venue-3", devices.getItems().get(0).deviceId());

    robot.clickOn("#tab-rooms");
    ListView<RoomMessage> tail = robot.lookup("#room-tail").queryListView();
    Display.await("the tail fills", () -> !tail.getItems().isEmpty());
    assertTrue(tail.getItems().stream().allMatch(m -> m.status() == RoomMessage.Status.CONFIRMED));
    assertTrue(tail.getItems().stream().anyMatch(m -> m.text().contains("弹幕")));
    Label relay = robot.lookup("#relay-status").queryAs(Label.class);
    Display.await("the relay's lag shows", () -> relay.getText().contains("3 messages behind"));
    assertTrue(relay.isVisible());

    robot.clickOn("#tab-review");
    TableView<ReviewItem> review = table(robot, "#review-table");
    Display.await("held messages", () -> !review.getItems().isEmpty());
    int held = review.getItems().size();
    robot.clickOn(
        robot.lookup("#review-table .table-row-cell").nth(0).queryAs(javafx.scene.Node.class));
    robot.clickOn("#review-approve");
    Label result = robot.lookup("#review-message").queryAs(Label.class);
    Display.await("approval confirmed", () -> result.getText().startsWith("Approved "));
    Display.await("queue shrinks", () -> review.getItems().size() == held - 1);
    api.loseNextDecision();
    robot.clickOn(
        robot.lookup("#review-table .table-row-cell").nth(0).queryAs(javafx.scene.Node.class));
    robot.clickOn("#review-reject");
    Display.await(
        "the conflict is explained",
        () -> result.getText().equals(ReviewViewModel.CONFLICT_MESSAGE));

    robot.clickOn("#tab-inspector");
    RoomMessage m = tail.getItems().get(tail.getItems().size() - 1);
    robot.clickOn("#inspector-query").write(m.messageId());
    robot.clickOn("#inspector-lookup");
    Display.await(
        "a green verdict",
        () ->
            robot
                .lookup("#verdict-headline")
                .tryQuery()
                .map(n -> ((Label) n).getText().startsWith("Verified: leaf #" + m.deviceIndex()))
                .orElse(false));
    Display.await(
        "a green room-log verdict beside it",
        () ->
            robot
                .lookup("#room-verdict-headline")
                .tryQuery()
                .map(n -> ((Label) n).getText().startsWith("Verified: seq " + m.seq() + " is leaf"))
                .orElse(false));
    // the entry label is laid out in the same update as the verdict, possibly a pulse later
    Display.await(
        "the room entry shown", () -> robot.lookup("#inspector-room-entry").tryQuery().isPresent());
    Label entry = robot.lookup("#inspector-room-entry").queryAs(Label.class);
    assertTrue(
        entry.getText().startsWith("v1 " + m.seq() + " M " + m.messageId()), entry.getText());
    api.tamper(FixtureApi.Tamper.ROOM_PROOF);
    robot.clickOn("#inspector-lookup");
    Display.await(
        "a tampered room bundle is red",
        () ->
            robot
                .lookup("#room-verdict-headline")
                .tryQuery()
                .map(n -> ((Label) n).getText().startsWith("The room proof does not lead"))
                .orElse(false));
    api.tamperProofs(true);
    robot.clickOn("#inspector-lookup");
    Display.await(
        "a tampered proof is red",
        () ->
            robot
                .lookup("#verdict-headline")
                .tryQuery()
                .map(n -> ((Label) n).getText().contains("does not lead to the root"))
                .orElse(false));

    robot.clickOn("#tab-alerts");
    TableView<AdminEvent> alerts = table(robot, "#alerts-table");
    Display.await("four alerts", () -> alerts.getItems().size() == 4);
    assertEquals(AdminEvent.Severity.CRITICAL, alerts.getItems().get(0).severity());

    robot.clickOn("#tab-instances");
    TableView<InstanceRow> instances = table(robot, "#instances-table");
    Display.await("two instances", () -> instances.getItems().size() == 2);
    assertEquals("i-7f3a01c2", instances.getItems().get(0).instance().id());
    Label summary = robot.lookup("#instances-summary").queryAs(Label.class);
    assertEquals("1 up · 1 down", summary.getText());
    assertTrue(robot.lookup("#instances-table .chip-down").tryQuery().isPresent());
  }

  @Test
  void serverOutageShowsTheStaleBannerAndKeepsTheData(FxRobot robot) throws IOException {
    Display.await("the console is live", () -> app.connection().state().get() == State.LIVE);
    robot.clickOn("#tab-devices");
    TableView<DeviceSummary> devices = table(robot, "#devices-table");
    Display.await("five devices", () -> devices.getItems().size() == 5);
    server.shutdown();
    Label banner = robot.lookup("#connection-banner").queryAs(Label.class);
    Display.await(
        "the stale banner", () -> banner.isVisible() && banner.getText().contains("stale since"));
    assertTrue(banner.getText().startsWith("Cannot reach the server at "), banner.getText());
    assertEquals(5, devices.getItems().size());
  }

  @Test
  void settingsDialogSwitchesTokensAndABadOneIsExplained(FxRobot robot) {
    Display.await("the console is live", () -> app.connection().state().get() == State.LIVE);
    Label banner = robot.lookup("#connection-banner").queryAs(Label.class);

    robot.clickOn("#settings-button");
    robot.clickOn("#settings-token").write("wrong-token");
    robot.clickOn("OK");
    Display.await(
        "the refused-token banner",
        () -> app.connection().state().get() == State.UNAUTHORIZED && banner.isVisible());
    assertTrue(
        banner.getText().startsWith("The server refused the admin token."), banner.getText());

    robot.clickOn("#settings-button");
    robot.clickOn("#settings-token").write(FixtureApi.TOKEN);
    robot.clickOn("OK");
    Display.await("live again", () -> app.connection().state().get() == State.LIVE);
    Display.await("the banner is gone", () -> !banner.isVisible());
  }
}
