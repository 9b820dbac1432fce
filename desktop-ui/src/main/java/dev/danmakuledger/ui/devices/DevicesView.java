package dev.danmakuledger.ui.devices;

import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.ui.live.Chips;
import dev.danmakuledger.ui.live.Format;
import java.time.ZoneId;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.transformation.SortedList;
import javafx.css.PseudoClass;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;

/**
 * The devices tab: a sortable, filterable table with one status chip per device and, beside it, the
 * number of checkpoints for the device that failed verification (docs/security.md) and its upload
 * queue; a STUCK device's row is highlighted and carries a STUCK chip (docs/console.md, "Devices").
 */
public final class DevicesView extends BorderPane {
  /** The pseudo-class of the row of a device in an open STUCK episode. */
  static final PseudoClass STUCK = PseudoClass.getPseudoClass("stuck");

  /**
   * Widths that fit every column at the default 1440×900 window: a local date and time in full, a
   * count of up to seven digits under a header of two short lines.
   */
  private static final double TIME_WIDTH = 150;

  private static final double NUMBER_WIDTH = 80;

  public DevicesView(DevicesViewModel vm, ZoneId zone) {
    setId("devices-view");
    setPadding(new Insets(12));
    TextField filter = new TextField();
    filter.setId("device-filter");
    filter.setPromptText("Filter by device id or status");
    filter.setPrefColumnCount(28);
    filter.textProperty().addListener((obs, old, now) -> vm.setFilter(now));
    Label attention = new Label();
    attention.setId("devices-attention");
    attention
        .textProperty()
        .bind(
            vm.needAttention()
                .asString("%d device(s) need attention")
                .concat(vm.stuck().asString(" · %d stuck"))
                .concat(vm.devices().sizeProperty().asString(" · %d shown")));
    HBox bar = new HBox(12, filter, attention);
    bar.setAlignment(Pos.CENTER_LEFT);
    bar.setPadding(new Insets(0, 0, 8, 0));
    setTop(bar);

    TableView<DeviceSummary> table = new TableView<>();
    table.setId("devices-table");
    table.setPlaceholder(new Label("No devices."));
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    // The whole summary, so the chips update when only the STUCK state changes.
    TableColumn<DeviceSummary, DeviceSummary> status = column("Status", d -> d);
    status.setComparator(Comparator.comparing(d -> severity(d.status())));
    status.setPrefWidth(125); // room for a status chip and a STUCK chip
    status.setCellFactory(
        c ->
            new TableCell<>() {
              @Override
              protected void updateItem(DeviceSummary d, boolean empty) {
                super.updateItem(d, empty);
                setText(null);
                if (empty || d == null) {
                  setGraphic(null);
                } else if (DevicesViewModel.isStuck(d)) {
                  setGraphic(new HBox(4, Chips.of(d.status().name()), Chips.of("STUCK")));
                } else {
                  setGraphic(Chips.of(d.status().name()));
                }
              }
            });
    TableColumn<DeviceSummary, Long> skew = column("Clock\nskew", DeviceSummary::clockSkewMs);
    skew.setComparator(Comparator.nullsFirst(Comparator.comparingLong(Math::abs)));
    skew.setCellFactory(c -> text(Format::skew));
    skew.setPrefWidth(80);
    TableColumn<DeviceSummary, String> oldest =
        column("Oldest\nunsynced", DevicesViewModel::oldestUnsynced);
    oldest.setComparator(Comparator.nullsFirst(Comparator.naturalOrder()));
    oldest.setPrefWidth(90);
    TableColumn<DeviceSummary, String> attempt =
        column("Last sync\nattempt", DevicesViewModel::lastAttempt);
    attempt.setPrefWidth(200);
    table
        .getColumns()
        .addAll(
            List.of(
                column("Device", DeviceSummary::deviceId),
                status,
                number("Bad\nsignatures", DeviceSummary::badSignatureAttempts),
                number("Verified\nsize", DeviceSummary::verifiedSize),
                number("Claimed\nsize", DeviceSummary::claimedSize),
                number("Pending\n(est.)", DeviceSummary::pendingEstimate),
                oldest,
                attempt,
                column("Report", DevicesViewModel::report),
                time("Last checkpoint", DeviceSummary::lastCheckpointAt, zone),
                time("Last receipt", DeviceSummary::lastReceiptAt, zone),
                skew,
                time("Last seen", DeviceSummary::lastSeenAt, zone)));
    table.setRowFactory(
        t ->
            new TableRow<>() {
              @Override
              protected void updateItem(DeviceSummary d, boolean empty) {
                super.updateItem(d, empty);
                pseudoClassStateChanged(STUCK, !empty && d != null && DevicesViewModel.isStuck(d));
              }
            });
    SortedList<DeviceSummary> sorted = new SortedList<>(vm.devices());
    sorted.comparatorProperty().bind(table.comparatorProperty());
    table.setItems(sorted);
    setCenter(table);
  }

  /** Worst first when sorting by status. */
  private static int severity(DeviceSummary.Status status) {
    return switch (status) {
      case FORKED -> 0;
      case BAD_SIGNATURE -> 1;
      case QUARANTINED -> 2;
      case OFFLINE -> 3;
      case BEHIND -> 4;
      case VERIFIED -> 5;
      case UNKNOWN -> 6;
    };
  }

  private static <T> TableColumn<DeviceSummary, T> column(
      String title, Function<DeviceSummary, T> value) {
    TableColumn<DeviceSummary, T> col = new TableColumn<>(title);
    col.setCellValueFactory(c -> new ReadOnlyObjectWrapper<>(value.apply(c.getValue())));
    return col;
  }

  private static TableColumn<DeviceSummary, Long> number(
      String title, Function<DeviceSummary, Long> value) {
    TableColumn<DeviceSummary, Long> col = column(title, value);
    col.setStyle("-fx-alignment: CENTER-RIGHT;");
    col.setPrefWidth(NUMBER_WIDTH);
    return col;
  }

  private static TableColumn<DeviceSummary, String> time(
      String title, Function<DeviceSummary, String> value, ZoneId zone) {
    TableColumn<DeviceSummary, String> col = column(title, value);
    col.setComparator(Comparator.nullsFirst(Comparator.naturalOrder()));
    col.setCellFactory(c -> text(iso -> Format.dateTime(iso, zone)));
    col.setMinWidth(TIME_WIDTH);
    return col;
  }

  private static <T> TableCell<DeviceSummary, T> text(Function<T, String> format) {
    return new TableCell<>() {
      @Override
      protected void updateItem(T item, boolean empty) {
        super.updateItem(item, empty);
        setText(empty ? null : format.apply(item));
      }
    };
  }
}
