package dev.danmakuledger.ui.app;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The console's views, as named on the command line ({@code --view}). */
public enum ViewName {
  OVERVIEW("Overview"),
  DEVICES("Devices"),
  ROOMS("Rooms"),
  REVIEW("Review"),
  INSPECTOR("Inspector"),
  ALERTS("Alerts"),
  INSTANCES("Instances");

  private final String title;

  ViewName(String title) {
    this.title = title;
  }

  /** The tab title. */
  public String title() {
    return title;
  }

  /** The command-line spelling, e.g. "devices". */
  public String cli() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a command-line view name.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static ViewName parse(String s) {
    for (ViewName v : values()) {
      if (v.cli().equals(s == null ? "" : s.strip().toLowerCase(Locale.ROOT))) {
        return v;
      }
    }
    throw new IllegalArgumentException(
        "view: got "
            + s
            + ", want one of "
            + Arrays.stream(values()).map(ViewName::cli).collect(Collectors.joining(", ")));
  }
}
