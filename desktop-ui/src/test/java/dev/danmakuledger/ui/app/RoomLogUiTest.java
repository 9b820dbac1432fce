package dev.danmakuledger.ui.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.json.Json;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.ui.client.Endpoint;
import dev.danmakuledger.ui.history.HistoryStore;
import dev.danmakuledger.ui.live.ConnectionViewModel.State;
import dev.danmakuledger.ui.testing.Display;
import dev.danmakuledger.ui.testing.FixtureApi;
import dev.danmakuledger.ui.testing.Ledger;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
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
 * The Rooms view's room log audit in the real console window: against the fixture API, room {@code
 * lobby}'s log verifies, and room {@code live.1}'s forks after the console's first read, which the
 * console shows as a red split view on the room's row, above the rooms and in the Alerts view.
 */
@ExtendWith(ApplicationExtension.class)
class RoomLogUiTest {
  private MockWebServer server;
  private ConsoleApp app;

  @Start
  void start(Stage stage) throws IOException {
    server = new MockWebServer();
    FixtureApi api = new FixtureApi(Ledger.standard(), Clock.systemUTC());
    api.roomLogs.forkAfterFirstRead("live.1");
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

  @Test
  void roomsViewShowsTheVerificationStateAndASplitView(FxRobot robot) {
    Display.await("the console is live", () -> app.connection().state().get() == State.LIVE);
    robot.clickOn("#tab-rooms");
    Display.await("the console saw live.1 split", () -> app.roomLogs.alerts().size() == 1);
    Display.await(
        "lobby is verified and live.1 split",
        () -> chips(robot).contains("VERIFIED") && chips(robot).contains("SPLIT VIEW"));
    Label alert = robot.lookup("#split-view-alert").queryAs(Label.class);
    assertTrue(alert.isVisible());
    assertTrue(alert.getText().startsWith("SPLIT VIEW of room live.1"), alert.getText());

    robot.clickOn("#tab-alerts");
    TableView<AdminEvent> alerts = robot.lookup("#alerts-table").queryTableView();
    Display.await(
        "the split view and the server's four alerts", () -> alerts.getItems().size() == 5);
    assertEquals("split-view", alerts.getItems().get(0).data().get("kind"));
    assertEquals("live.1", alerts.getItems().get(0).room());
  }

  private static List<String> chips(FxRobot robot) {
    return robot.lookup("#room-log-status").queryAll().stream()
        .filter(Node::isVisible)
        .map(n -> ((Label) n).getText())
        .toList();
  }
}
