package dev.danmakuledger.ui.app;

import dev.danmakuledger.ui.client.Endpoint;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import javafx.geometry.Insets;
import javafx.scene.control.Alert;
import javafx.scene.control.ButtonType;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.PasswordField;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.stage.Window;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Asks for the server URL and admin token, optionally remembering them in the config file. */
final class SettingsDialog {
  private static final Logger log = LoggerFactory.getLogger(SettingsDialog.class);

  private SettingsDialog() {}

  /**
   * Shows the dialog; returns the endpoint entered, or empty if cancelled.
   *
   * @param configFile where "remember" saves, or null to hide that option
   */
  static Optional<Endpoint> ask(Window owner, String currentServer, Path configFile) {
    Dialog<ButtonType> dialog = new Dialog<>();
    dialog.initOwner(owner);
    dialog.setTitle("Connection settings");
    dialog.setHeaderText("Which sync server should the console watch?");
    TextField server =
        new TextField(currentServer == null ? "http://127.0.0.1:8080" : currentServer);
    server.setId("settings-server");
    server.setPrefColumnCount(32);
    PasswordField token = new PasswordField();
    token.setId("settings-token");
    token.setPromptText("admin token");
    CheckBox remember = new CheckBox("Remember in " + configFile);
    remember.setId("settings-remember");
    remember.setSelected(configFile != null);
    remember.setVisible(configFile != null);
    GridPane grid = new GridPane();
    grid.setHgap(8);
    grid.setVgap(8);
    grid.setPadding(new Insets(12));
    grid.addRow(0, new Label("Server URL"), server);
    grid.addRow(1, new Label("Admin token"), token);
    grid.add(remember, 1, 2);
    dialog.getDialogPane().setContent(grid);
    dialog.getDialogPane().getButtonTypes().addAll(ButtonType.OK, ButtonType.CANCEL);
    while (true) {
      Optional<ButtonType> answer = dialog.showAndWait();
      if (answer.isEmpty() || answer.get() != ButtonType.OK) {
        return Optional.empty();
      }
      Endpoint endpoint;
      try {
        endpoint = Endpoint.of(server.getText(), token.getText());
      } catch (IllegalArgumentException e) {
        Alert alert = new Alert(Alert.AlertType.ERROR, e.getMessage(), ButtonType.OK);
        alert.initOwner(owner);
        alert.setHeaderText("These settings cannot be used");
        alert.showAndWait();
        continue;
      }
      if (configFile != null && remember.isSelected()) {
        try {
          ConsoleSettings.save(configFile, endpoint.baseUrl().toString(), endpoint.token());
        } catch (IOException e) {
          log.warn("cannot save settings to {}", configFile, e);
          Alert alert =
              new Alert(
                  Alert.AlertType.WARNING,
                  "The settings are used now but could not be saved: " + e.getMessage(),
                  ButtonType.OK);
          alert.initOwner(owner);
          alert.showAndWait();
        }
      }
      return Optional.of(endpoint);
    }
  }
}
