package dev.danmakuledger.ui.alerts;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.ui.live.Chips;
import dev.danmakuledger.ui.live.Format;
import java.time.ZoneId;
import java.util.List;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.BorderPane;

/** The alerts tab: newest first, with time, severity, device and room. */
public final class AlertsView extends BorderPane {
  public AlertsView(AlertsViewModel vm, ZoneId zone) {
    setId("alerts-view");
    setPadding(new Insets(12));
    Label summary = new Label();
    summary.setId("alerts-summary");
    summary
        .textProperty()
        .bind(
            vm.alerts()
                .sizeProperty()
                .asString("%d alert(s), ")
                .concat(vm.critical().asString("%d critical")));
    BorderPane.setMargin(summary, new Insets(0, 0, 8, 0));
    setTop(summary);
    TableView<AdminEvent> table = new TableView<>(vm.alerts());
    table.setId("alerts-table");
    table.setPlaceholder(new Label("No alerts."));
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    TableColumn<AdminEvent, String> severity = column("Severity", a -> a.severity().name());
    severity.setCellFactory(
        c ->
            new TableCell<>() {
              @Override
              protected void updateItem(String s, boolean empty) {
                super.updateItem(s, empty);
                setText(null);
                setGraphic(empty || s == null ? null : Chips.of(s));
              }
            });
    TableColumn<AdminEvent, String> time = column("Time", a -> Format.dateTime(a.at(), zone));
    time.setPrefWidth(150);
    TableColumn<AdminEvent, String> kind =
        column("Kind", a -> String.valueOf(a.data().getOrDefault("kind", a.type())));
    kind.setMinWidth(130); // BAD_SIGNATURE, DAMAGED_ROW, split-view in full
    TableColumn<AdminEvent, String> message = column("What happened", AdminEvent::message);
    message.setPrefWidth(520);
    // the trace id of the batch that raised the alert, to find its server log lines and spans
    TableColumn<AdminEvent, String> trace =
        column("Trace", a -> String.valueOf(a.data().getOrDefault("traceId", "—")));
    trace.setId("alert-trace");
    trace.setMinWidth(270); // 32 hex digits
    table
        .getColumns()
        .addAll(
            List.of(
                time,
                severity,
                kind,
                column("Device", a -> a.deviceId() == null ? "—" : a.deviceId()),
                column("Room", a -> a.room() == null ? "—" : a.room()),
                message,
                trace));
    setCenter(table);
  }

  private static <T> TableColumn<AdminEvent, T> column(
      String title, Function<AdminEvent, T> value) {
    TableColumn<AdminEvent, T> col = new TableColumn<>(title);
    col.setCellValueFactory(c -> new ReadOnlyObjectWrapper<>(value.apply(c.getValue())));
    return col;
  }
}
