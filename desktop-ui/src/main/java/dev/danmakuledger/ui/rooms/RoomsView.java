package dev.danmakuledger.ui.rooms;

import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import dev.danmakuledger.ui.live.Chips;
import dev.danmakuledger.ui.live.Format;
import dev.danmakuledger.ui.roomlog.RoomLogState;
import dev.danmakuledger.ui.roomlog.RoomLogStatus;
import dev.danmakuledger.ui.roomlog.RoomLogsViewModel;
import java.util.List;
import java.util.function.Function;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.paint.Color;
import javafx.scene.text.Text;
import javafx.scene.text.TextFlow;

/**
 * The rooms tab: per-room sequence state, the Kafka relay's lag (docs/kafka.md, "Lag") and the
 * console's own audit of the room's log (size, checkpoint age, verdict) above, and the selected
 * room's live tail below, each message drawn in its danmaku colour on a dark, player-like
 * background. A split view of any room log is a red bar over everything, kept as long as the
 * console's history records it.
 */
public final class RoomsView extends BorderPane {
  public RoomsView(RoomsViewModel vm, RoomLogsViewModel logs) {
    setId("rooms-view");
    setPadding(new Insets(12));
    TableView<RoomSummary> table = new TableView<>(vm.rooms());
    table.setId("rooms-table");
    table.setPlaceholder(new Label("No rooms."));
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    table
        .getColumns()
        .addAll(
            List.of(
                column("Room", RoomSummary::room),
                column("High-water seq", RoomSummary::highSeq),
                column("Tombstones", RoomSummary::tombstones),
                column("Confirmed", RoomSummary::confirmed),
                column("Pending", RoomSummary::pending),
                column("Rejected", RoomSummary::rejected),
                column("Msgs/min", r -> String.format("%.1f", r.messagesPerMinute())),
                column("Kafka lag", r -> RoomsViewModel.relayLag(r.relay())),
                logColumn(logs, "Log size", s -> s.size() < 0 ? "—" : Long.toString(s.size())),
                logColumn(logs, "Checkpoint age", s -> Format.age(s.ageSeconds())),
                statusColumn(logs)));
    table
        .getSelectionModel()
        .selectedItemProperty()
        .addListener(
            (obs, old, now) -> {
              if (now != null) {
                vm.select(now.room());
              }
            });
    vm.rooms()
        .addListener(
            (ListChangeListener<RoomSummary>)
                c -> {
                  String sel = vm.selected().get();
                  for (RoomSummary r : vm.rooms()) {
                    RoomSummary current = table.getSelectionModel().getSelectedItem();
                    if (r.room().equals(sel) && (current == null || !current.room().equals(sel))) {
                      table.getSelectionModel().select(r);
                    }
                  }
                });

    Label title = new Label();
    title.setId("tail-title");
    title.getStyleClass().add("section-title");
    title
        .textProperty()
        .bind(
            vm.selected()
                .map(r -> "Live tail of room " + r + " (CONFIRMED messages)")
                .orElse("Select a room to follow its messages"));
    ListView<RoomMessage> tail = new ListView<>(vm.tail());
    tail.setId("room-tail");
    tail.getStyleClass().add("danmaku-tail");
    tail.setPlaceholder(new Label("No confirmed messages yet."));
    tail.setCellFactory(v -> new DanmakuCell());
    vm.tail()
        .addListener(
            (ListChangeListener<RoomMessage>)
                c -> {
                  if (!vm.tail().isEmpty()) {
                    Platform.runLater(() -> tail.scrollTo(Math.max(0, vm.tail().size() - 1)));
                  }
                });
    BorderPane lower = new BorderPane(tail);
    lower.setTop(title);
    BorderPane.setMargin(title, new Insets(0, 0, 6, 0));

    Label relay = new Label();
    relay.setId("relay-status");
    relay.setWrapText(true);
    relay.textProperty().bind(vm.relayStatus());
    relay.visibleProperty().bind(relay.textProperty().isNotEmpty());
    relay.managedProperty().bind(relay.visibleProperty());
    vm.relayTrouble()
        .addListener(
            (obs, was, now) -> {
              relay.getStyleClass().remove("relay-trouble");
              if (now) {
                relay.getStyleClass().add("relay-trouble");
              }
            });
    BorderPane upper = new BorderPane(table);
    upper.setTop(relay);
    BorderPane.setMargin(relay, new Insets(0, 0, 6, 0));

    SplitPane split = new SplitPane(upper, lower);
    split.setOrientation(Orientation.VERTICAL);
    split.setDividerPositions(0.35);
    setCenter(split);

    Label splitAlert = new Label();
    splitAlert.setId("split-view-alert");
    splitAlert.getStyleClass().add("split-view-alert");
    splitAlert.setMaxWidth(Double.MAX_VALUE);
    splitAlert.setWrapText(true);
    splitAlert.visibleProperty().bind(splitAlert.textProperty().isNotEmpty());
    splitAlert.managedProperty().bind(splitAlert.visibleProperty());
    Runnable showSplits =
        () ->
            splitAlert.setText(
                logs.alerts().isEmpty()
                    ? ""
                    : String.join("\n", logs.alerts().stream().map(AdminEvent::message).toList()));
    logs.alerts().addListener((ListChangeListener<AdminEvent>) c -> showSplits.run());
    showSplits.run();
    BorderPane.setMargin(splitAlert, new Insets(0, 0, 8, 0));
    setTop(splitAlert);
  }

  private static TableColumn<RoomSummary, String> logColumn(
      RoomLogsViewModel logs, String title, Function<RoomLogState, String> value) {
    TableColumn<RoomSummary, String> col = new TableColumn<>(title);
    col.setCellValueFactory(
        c -> Bindings.valueAt(logs.states(), c.getValue().room()).map(value).orElse("—"));
    return col;
  }

  /** The room log audit's verdict, a coloured chip, with the audit's detail as its tooltip. */
  private static TableColumn<RoomSummary, RoomLogState> statusColumn(RoomLogsViewModel logs) {
    TableColumn<RoomSummary, RoomLogState> col = new TableColumn<>("Room log");
    col.setPrefWidth(130);
    col.setCellValueFactory(c -> Bindings.valueAt(logs.states(), c.getValue().room()));
    col.setCellFactory(
        c ->
            new TableCell<>() {
              @Override
              protected void updateItem(RoomLogState s, boolean empty) {
                super.updateItem(s, empty);
                setText(null);
                if (empty) {
                  setGraphic(null);
                  setTooltip(null);
                  return;
                }
                RoomLogStatus status = s == null ? RoomLogStatus.CHECKING : s.status();
                Label chip = Chips.of(status.name());
                chip.setId("room-log-status");
                setGraphic(chip);
                setTooltip(s == null || s.detail() == null ? null : new Tooltip(s.detail()));
              }
            });
    return col;
  }

  private static <T> TableColumn<RoomSummary, T> column(
      String title, Function<RoomSummary, T> value) {
    TableColumn<RoomSummary, T> col = new TableColumn<>(title);
    col.setCellValueFactory(c -> new ReadOnlyObjectWrapper<>(value.apply(c.getValue())));
    return col;
  }

  /** One danmaku: sequence number and user in grey, the text in its own colour. */
  static final class DanmakuCell extends ListCell<RoomMessage> {
    @Override
    protected void updateItem(RoomMessage m, boolean empty) {
      super.updateItem(m, empty);
      setText(null);
      if (empty || m == null) {
        setGraphic(null);
        return;
      }
      Text seq = new Text(String.format("#%-6d", m.seq()));
      seq.getStyleClass().add("tail-meta");
      Text user = new Text(m.user() + "  ");
      user.getStyleClass().add("tail-meta");
      DanmakuText shown = DanmakuText.of(m.mode(), m.text());
      Text text = new Text(shown.text());
      text.getStyleClass().add("tail-text");
      Color colour = Color.rgb((m.color() >> 16) & 0xFF, (m.color() >> 8) & 0xFF, m.color() & 0xFF);
      text.setFill(colour);
      if (luminance(colour) < 0.15) {
        text.getStyleClass().add("tail-text-dark");
      }
      HBox row = new HBox(new TextFlow(seq, user, text));
      if (shown.badge() != null) {
        Label badge = new Label(shown.badge());
        badge.getStyleClass().addAll("chip", "tail-badge");
        row.getChildren().add(0, badge);
        row.setSpacing(6);
      }
      setGraphic(row);
    }

    /** WCAG relative luminance; below 0.15 text is hard to read on the tail's dark background. */
    static double luminance(Color c) {
      return 0.2126 * linear(c.getRed())
          + 0.7152 * linear(c.getGreen())
          + 0.0722 * linear(c.getBlue());
    }

    private static double linear(double srgb) {
      return srgb <= 0.03928 ? srgb / 12.92 : Math.pow((srgb + 0.055) / 1.055, 2.4);
    }
  }
}
