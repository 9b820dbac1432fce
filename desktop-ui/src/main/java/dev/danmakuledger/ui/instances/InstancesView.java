package dev.danmakuledger.ui.instances;

import dev.danmakuledger.ui.live.Chips;
import dev.danmakuledger.ui.live.Format;
import java.time.ZoneId;
import java.util.List;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;

/**
 * The instances tab: one row per sync-server instance with an UP/DOWN chip by heartbeat age, its
 * address, version, start time, heartbeat age, batches per second and room-stream subscribers.
 */
public final class InstancesView extends BorderPane {
  public InstancesView(InstancesViewModel vm, ZoneId zone) {
    setId("instances-view");
    setPadding(new Insets(12));
    Label summary = new Label();
    summary.setId("instances-summary");
    summary.textProperty().bind(vm.up().asString("%d up").concat(vm.down().asString(" · %d down")));
    Label problem = new Label();
    problem.setId("instances-problem");
    problem.getStyleClass().add("error-text");
    problem.textProperty().bind(vm.problem());
    HBox bar = new HBox(12, summary, problem);
    bar.setAlignment(Pos.CENTER_LEFT);
    bar.setPadding(new Insets(0, 0, 8, 0));
    setTop(bar);

    TableView<InstanceRow> table = new TableView<>();
    table.setId("instances-table");
    table.setPlaceholder(new Label("No instance has registered."));
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    TableColumn<InstanceRow, String> status = column("Status", r -> r.instance().status().name());
    status.setCellFactory(
        c ->
            new TableCell<>() {
              @Override
              protected void updateItem(String s, boolean empty) {
                super.updateItem(s, empty);
                setText(null);
                setGraphic(empty || s == null ? null : Chips.of(s));
              }
            });
    TableColumn<InstanceRow, Long> age = column("Last heartbeat", InstanceRow::heartbeatAgeSeconds);
    age.setCellFactory(c -> text(s -> s < 0 ? "—" : Format.age(s) + " ago"));
    TableColumn<InstanceRow, Double> rate =
        column("Batches/s", r -> r.instance().batchesPerSecond());
    rate.setCellFactory(c -> text(v -> String.format("%.2f", v)));
    rate.setStyle("-fx-alignment: CENTER-RIGHT;");
    TableColumn<InstanceRow, Long> subscribers =
        column("Subscribers", r -> r.instance().subscribers());
    subscribers.setStyle("-fx-alignment: CENTER-RIGHT;");
    TableColumn<InstanceRow, String> started = column("Started", r -> r.instance().startedAt());
    started.setCellFactory(c -> text(iso -> Format.dateTime(iso, zone)));
    table
        .getColumns()
        .addAll(
            List.of(
                column("Instance", r -> r.instance().id()),
                status,
                column("Address", r -> r.instance().address()),
                column("Version", r -> r.instance().version()),
                started,
                age,
                rate,
                subscribers));
    table.setItems(vm.instances());
    setCenter(table);
  }

  private static <T> TableColumn<InstanceRow, T> column(
      String title, Function<InstanceRow, T> value) {
    TableColumn<InstanceRow, T> col = new TableColumn<>(title);
    col.setCellValueFactory(c -> new ReadOnlyObjectWrapper<>(value.apply(c.getValue())));
    return col;
  }

  private static <T> TableCell<InstanceRow, T> text(Function<T, String> format) {
    return new TableCell<>() {
      @Override
      protected void updateItem(T item, boolean empty) {
        super.updateItem(item, empty);
        setText(empty || item == null ? null : format.apply(item));
      }
    };
  }
}
