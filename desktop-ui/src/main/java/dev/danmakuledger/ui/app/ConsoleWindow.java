package dev.danmakuledger.ui.app;

import dev.danmakuledger.ui.alerts.AlertsView;
import dev.danmakuledger.ui.devices.DevicesView;
import dev.danmakuledger.ui.inspector.InspectorView;
import dev.danmakuledger.ui.instances.InstancesView;
import dev.danmakuledger.ui.live.ConnectionViewModel;
import dev.danmakuledger.ui.overview.OverviewView;
import dev.danmakuledger.ui.review.ReviewView;
import dev.danmakuledger.ui.rooms.RoomsView;
import java.time.ZoneId;
import java.util.EnumMap;
import java.util.Map;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The console's main window content: the connection banner (stale or refused state), a status bar
 * with the server and live-event state, and one tab per view.
 */
final class ConsoleWindow extends BorderPane {
  private final TabPane tabs = new TabPane();
  private final Map<ViewName, Tab> byName = new EnumMap<>(ViewName.class);

  ConsoleWindow(ConsoleApp app) {
    setId("console-window");
    getStylesheets().add(ConsoleWindow.class.getResource("console.css").toExternalForm());
    setStyle("-fx-font-family: \"" + Fonts.family() + "\";");
    ZoneId zone = app.context().clock().getZone();
    ConnectionViewModel connection = app.connection();

    Label banner = new Label();
    banner.setId("connection-banner");
    banner.getStyleClass().add("banner");
    banner.setMaxWidth(Double.MAX_VALUE);
    banner.setWrapText(true);
    banner.textProperty().bind(connection.banner());
    banner.visibleProperty().bind(connection.banner().isNotEmpty());
    banner.managedProperty().bind(banner.visibleProperty());
    connection
        .state()
        .addListener(
            (obs, old, now) -> {
              banner
                  .getStyleClass()
                  .removeAll("banner-stale", "banner-unauthorized", "banner-connecting");
              banner.getStyleClass().add(bannerStyle(now));
            });
    banner.getStyleClass().add(bannerStyle(connection.state().get()));

    Label server = new Label();
    server.setId("status-server");
    server.textProperty().bind(connection.server().map(s -> "Server: " + s));
    Label events = new Label();
    events.setId("status-events");
    events.textProperty().bind(connection.events());
    Label updated = new Label();
    updated.setId("status-updated");
    updated
        .textProperty()
        .bind(
            connection
                .lastUpdate()
                .map(at -> "Updated " + dev.danmakuledger.ui.live.Format.time(at, zone))
                .orElse("Not updated yet"));
    Region grow = new Region();
    HBox.setHgrow(grow, Priority.ALWAYS);
    Button refresh = new Button("Refresh");
    refresh.setId("refresh-button");
    refresh.setOnAction(e -> app.live().refreshAll());
    Button settings = new Button("Settings…");
    settings.setId("settings-button");
    settings.setOnAction(
        e ->
            SettingsDialog.ask(getScene().getWindow(), connection.server().get(), app.configFile())
                .ifPresent(app.live()::reconnect));
    HBox status = new HBox(server, events, updated, grow, refresh, settings);
    status.setAlignment(Pos.CENTER_LEFT);
    status.getStyleClass().add("status-bar");
    setTop(new VBox(banner, status));

    add(ViewName.OVERVIEW, new OverviewView(app.overview, zone));
    add(ViewName.DEVICES, new DevicesView(app.devices, zone));
    add(ViewName.ROOMS, new RoomsView(app.rooms, app.roomLogs));
    add(ViewName.REVIEW, new ReviewView(app.review));
    add(ViewName.INSPECTOR, new InspectorView(app.inspector));
    add(ViewName.ALERTS, new AlertsView(app.alerts, zone));
    add(ViewName.INSTANCES, new InstancesView(app.instances, zone));
    tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    tabs.setId("views");
    setCenter(tabs);
  }

  /** Shows the named view. */
  public void select(ViewName view) {
    tabs.getSelectionModel().select(byName.get(view));
  }

  private void add(ViewName name, Node content) {
    Tab tab = new Tab();
    Label header = new Label(name.title());
    header.setId("tab-" + name.cli());
    tab.setGraphic(header);
    tab.setContent(content);
    byName.put(name, tab);
    tabs.getTabs().add(tab);
  }

  private static String bannerStyle(ConnectionViewModel.State s) {
    return switch (s) {
      case UNAUTHORIZED -> "banner-unauthorized";
      case STALE -> "banner-stale";
      case CONNECTING, LIVE -> "banner-connecting";
    };
  }
}
