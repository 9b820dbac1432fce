package dev.danmakuledger.ui.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

final class NoDisplayTest {
  static Properties system(String os, String glass) {
    Properties p = new Properties();
    p.setProperty("os.name", os);
    if (glass != null) {
      p.setProperty("glass.platform", glass);
    }
    return p;
  }

  @Test
  void linuxWithoutADisplayIsToldToUseXvfbOrScreenshots() {
    Optional<String> why = NoDisplay.reason(Map.of(), system("Linux", null));
    assertTrue(why.isPresent());
    assertTrue(why.get().contains("xvfb-run -a bin/console"), why.get());
    assertTrue(why.get().contains("--screenshot"), why.get());
    assertTrue(NoDisplay.reason(Map.of("DISPLAY", " "), system("Linux", null)).isPresent());
  }

  @Test
  void aDisplayAWaylandSocketMonocleOrAnotherOsMayOpenAWindow() {
    assertEquals(
        Optional.empty(), NoDisplay.reason(Map.of("DISPLAY", ":99"), system("Linux", null)));
    assertEquals(
        Optional.empty(),
        NoDisplay.reason(Map.of("WAYLAND_DISPLAY", "wayland-0"), system("Linux", null)));
    assertEquals(Optional.empty(), NoDisplay.reason(Map.of(), system("Linux", "Monocle")));
    assertEquals(Optional.empty(), NoDisplay.reason(Map.of(), system("Mac OS X", null)));
    assertEquals(Optional.empty(), NoDisplay.reason(Map.of(), system("Windows 11", null)));
  }
}
