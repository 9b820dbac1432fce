package dev.danmakuledger.ui.live;

import java.util.Locale;
import javafx.scene.control.Label;

/** Small coloured labels for statuses and severities, styled by {@code console.css}. */
public final class Chips {
  private Chips() {}

  /** A chip with style class {@code chip-<status in lower case>}. */
  public static Label of(String status) {
    Label chip = new Label(status == null ? "?" : status.replace('_', ' '));
    chip.getStyleClass().addAll("chip", "chip-" + String.valueOf(status).toLowerCase(Locale.ROOT));
    return chip;
  }
}
