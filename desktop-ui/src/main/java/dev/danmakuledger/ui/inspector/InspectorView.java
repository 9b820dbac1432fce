package dev.danmakuledger.ui.inspector;

import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.ui.live.Chips;
import dev.danmakuledger.ui.live.Format;
import dev.danmakuledger.ui.proof.RoomInclusion;
import dev.danmakuledger.ui.proof.Verdict;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.shape.SVGPath;

/**
 * The inspector tab: one search box, the message's facts, and side by side the local verdicts of
 * its device-log inclusion and of its room-log inclusion.
 */
public final class InspectorView extends BorderPane {
  private static final String CHECK = "M2 9 L7 14 L16 3";
  private static final String CROSS = "M3 3 L15 15 M15 3 L3 15";

  private final GridPane facts = new GridPane();
  private final VBox verdictBox = new VBox(6);
  private final VBox roomBox = new VBox(6);

  public InspectorView(InspectorViewModel vm) {
    setId("inspector-view");
    setPadding(new Insets(12));
    TextField query = new TextField();
    query.setId("inspector-query");
    query.setPromptText("Idempotency key, message id, or room#seq");
    query.setPrefColumnCount(48);
    Button go = new Button("Look up and verify");
    go.setId("inspector-lookup");
    go.setDefaultButton(true);
    go.disableProperty().bind(vm.busy());
    go.setOnAction(e -> vm.lookup(query.getText()));
    query.setOnAction(e -> vm.lookup(query.getText()));
    vm.query()
        .addListener(
            (obs, old, now) -> {
              if (!now.equals(query.getText().strip())) {
                query.setText(now);
              }
            });
    ProgressIndicator spinner = new ProgressIndicator();
    spinner.setPrefSize(20, 20);
    spinner.visibleProperty().bind(vm.busy());
    Label error = new Label();
    error.setId("inspector-error");
    error.getStyleClass().add("error-text");
    error.textProperty().bind(vm.error());
    HBox bar = new HBox(8, query, go, spinner);
    bar.setAlignment(Pos.CENTER_LEFT);
    VBox top = new VBox(6, bar, error);
    top.setPadding(new Insets(0, 0, 12, 0));
    setTop(top);

    facts.setId("inspector-facts");
    facts.setHgap(16);
    facts.setVgap(6);
    verdictBox.setId("inspector-verdict");
    roomBox.setId("inspector-room-verdict");
    for (VBox box : new VBox[] {verdictBox, roomBox}) {
      box.setPrefWidth(0);
      HBox.setHgrow(box, Priority.ALWAYS);
    }
    HBox proofs = new HBox(24, verdictBox, roomBox);
    VBox body = new VBox(16, facts, proofs);
    setCenter(body);

    vm.message().addListener((obs, old, m) -> showFacts(m, vm));
    vm.verdict().addListener((obs, old, v) -> showVerdict(verdictBox, "Device log", "", v));
    vm.roomInclusion().addListener((obs, old, r) -> showRoom(r));
  }

  private void showRoom(RoomInclusion r) {
    showVerdict(roomBox, "Room log", "room-", r == null ? null : r.verdict());
    if (r == null) {
      return;
    }
    GridPane grid = new GridPane();
    grid.setId("inspector-room-facts");
    grid.setHgap(12);
    grid.setVgap(4);
    grid.addRow(0, key("Room log size"), value(r.logSize() < 0 ? "—" : Long.toString(r.logSize())));
    grid.addRow(1, key("Leaf index"), value(r.leafIndex() + " (seq − 1)"));
    Label entry = value(r.entry().isEmpty() ? "—" : r.entry());
    entry.setId("inspector-room-entry");
    entry.getStyleClass().add("mono");
    grid.addRow(2, key("Entry"), entry);
    roomBox.getChildren().add(1, grid);
  }

  private void showFacts(RoomMessage m, InspectorViewModel vm) {
    facts.getChildren().clear();
    if (m == null) {
      return;
    }
    int row = 0;
    facts.addRow(row++, key("Outcome"), Chips.of(m.status().name()));
    facts.addRow(row++, key("Room / seq"), value(m.room() + " #" + m.seq()));
    facts.addRow(row++, key("Message id"), value(m.messageId() == null ? "—" : m.messageId()));
    facts.addRow(row++, key("Decoded id"), value(vm.decodedId().get()));
    facts.addRow(
        row++,
        key("Idempotency key"),
        value(m.idempotencyKey() == null ? "—" : m.idempotencyKey()));
    facts.addRow(row++, key("Device log"), value(vm.position().get()));
    facts.addRow(row++, key("User"), value(m.user() == null ? "—" : m.user()));
    Label text = value(m.text() == null ? "—" : m.text());
    text.setId("inspector-text");
    facts.addRow(row++, key("Text"), text);
    facts.addRow(
        row,
        key("Mode / colour / size"),
        value(m.mode() + " / " + Format.colour(m.color()) + " / " + m.fontSize()));
  }

  /** Fills {@code box} with {@code v} under {@code title}; node ids start with {@code prefix}. */
  private static void showVerdict(VBox box, String title, String prefix, Verdict v) {
    box.getChildren().clear();
    box.getStyleClass().removeAll("verdict-ok", "verdict-bad");
    if (v == null) {
      return;
    }
    box.getStyleClass().add(v.verified() ? "verdict-ok" : "verdict-bad");
    SVGPath mark = new SVGPath();
    mark.setContent(v.verified() ? CHECK : CROSS);
    mark.getStyleClass().add(v.verified() ? "mark-ok" : "mark-bad");
    Label heading = new Label(title);
    heading.getStyleClass().add("fact-key");
    Label headline = new Label(v.headline());
    headline.setId(prefix + "verdict-headline");
    headline.setWrapText(true);
    headline.getStyleClass().add("verdict-headline");
    HBox head = new HBox(10, mark, headline);
    head.setAlignment(Pos.CENTER_LEFT);
    box.getChildren().addAll(new VBox(4, heading, head));
    for (String d : v.details()) {
      Label l = new Label("• " + d);
      l.setWrapText(true);
      l.getStyleClass().add("verdict-detail");
      box.getChildren().add(l);
    }
  }

  private static Label key(String text) {
    Label l = new Label(text);
    l.getStyleClass().add("fact-key");
    l.setMinWidth(Region.USE_PREF_SIZE);
    return l;
  }

  private static Label value(String text) {
    Label l = new Label(text);
    l.getStyleClass().add("fact-value");
    l.setWrapText(true);
    return l;
  }
}
