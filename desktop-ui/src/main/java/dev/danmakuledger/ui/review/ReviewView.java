package dev.danmakuledger.ui.review;

import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import java.util.List;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.paint.Color;

/** The review tab: held messages, approve or reject the selected one. */
public final class ReviewView extends BorderPane {
  public ReviewView(ReviewViewModel vm) {
    setId("review-view");
    setPadding(new Insets(12));
    TableView<ReviewItem> table = new TableView<>(vm.items());
    table.setId("review-table");
    table.setPlaceholder(new Label("Nothing is waiting for review."));
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    TableColumn<ReviewItem, ReviewItem> text = new TableColumn<>("Text");
    text.setCellValueFactory(c -> new ReadOnlyObjectWrapper<>(c.getValue()));
    text.setCellFactory(
        c ->
            new TableCell<>() {
              @Override
              protected void updateItem(ReviewItem item, boolean empty) {
                super.updateItem(item, empty);
                if (empty || item == null) {
                  setText(null);
                  setStyle(null);
                  return;
                }
                setText(item.text());
                Color c =
                    Color.rgb(
                        (item.color() >> 16) & 0xFF,
                        (item.color() >> 8) & 0xFF,
                        item.color() & 0xFF);
                setTextFill(c.getBrightness() > 0.85 && c.getSaturation() < 0.2 ? Color.BLACK : c);
              }
            });
    text.setPrefWidth(360);
    table
        .getColumns()
        .addAll(
            List.of(
                column("Room", ReviewItem::room),
                column("Seq", ReviewItem::seq),
                column("User", ReviewItem::user),
                text,
                column("Device", ReviewItem::deviceId),
                column("Message id", ReviewItem::messageId)));

    TextField reason = new TextField();
    reason.setId("review-reason");
    reason.setPromptText("Reason (for rejections)");
    reason.setPrefColumnCount(24);
    Button approve = new Button("Approve");
    approve.setId("review-approve");
    approve.getStyleClass().add("approve");
    Button reject = new Button("Reject");
    reject.setId("review-reject");
    reject.getStyleClass().add("reject");
    approve
        .disableProperty()
        .bind(table.getSelectionModel().selectedItemProperty().isNull().or(vm.busy()));
    reject.disableProperty().bind(approve.disableProperty());
    approve.setOnAction(e -> vm.approve(table.getSelectionModel().getSelectedItem()));
    reject.setOnAction(
        e -> {
          vm.reject(table.getSelectionModel().getSelectedItem(), reason.getText());
          reason.clear();
        });
    Label message = new Label();
    message.setId("review-message");
    message.setWrapText(true);
    message.textProperty().bind(vm.message());
    vm.messageIsError()
        .addListener(
            (obs, old, err) -> {
              message.getStyleClass().removeAll("error-text", "ok-text");
              message.getStyleClass().add(err ? "error-text" : "ok-text");
            });
    HBox actions = new HBox(8, approve, reject, reason, message);
    actions.setAlignment(Pos.CENTER_LEFT);
    actions.setPadding(new Insets(8, 0, 0, 0));
    setCenter(table);
    setBottom(actions);
  }

  private static <T> TableColumn<ReviewItem, T> column(
      String title, Function<ReviewItem, T> value) {
    TableColumn<ReviewItem, T> col = new TableColumn<>(title);
    col.setCellValueFactory(c -> new ReadOnlyObjectWrapper<>(value.apply(c.getValue())));
    return col;
  }
}
