package dev.danmakuledger.ui.app;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Tells, before JavaFX starts, that a Linux or BSD host has no display to open a window on, so
 * {@code bin/console} says what to do instead of failing with the toolkit's stack trace.
 */
final class NoDisplay {
  static final String HINT =
      "Run it on a desktop, or under a virtual display: xvfb-run -a bin/console ...; "
          + "for a PNG of one view add --view NAME --screenshot FILE.png (docs/console.md)";

  private NoDisplay() {}

  /**
   * Why no window can open, or empty when one may: on X11 hosts without {@code DISPLAY} and {@code
   * WAYLAND_DISPLAY}, unless a headless glass platform (Monocle) was chosen.
   */
  static Optional<String> reason(Map<String, String> env, Properties system) {
    String os = system.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    boolean x11 = os.contains("linux") || os.contains("bsd");
    boolean headlessGlass = "monocle".equalsIgnoreCase(system.getProperty("glass.platform"));
    if (!x11 || headlessGlass || present(env, "DISPLAY") || present(env, "WAYLAND_DISPLAY")) {
      return Optional.empty();
    }
    return Optional.of("no display: DISPLAY is not set. " + HINT);
  }

  private static boolean present(Map<String, String> env, String name) {
    String v = env.get(name);
    return v != null && !v.isBlank();
  }
}
