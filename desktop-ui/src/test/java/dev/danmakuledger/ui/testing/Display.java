package dev.danmakuledger.ui.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.testfx.util.WaitForAsyncUtils;

/** What the TestFX UI tests share: a display check that fails loudly, and bounded waits. */
public final class Display {
  private Display() {}

  /** Fails (never skips) when there is no X display: CI always runs the build under xvfb-run. */
  public static void require() {
    String display = System.getenv("DISPLAY");
    if (display == null || display.isBlank()) {
      fail(
          "TestFX UI tests need a display, got DISPLAY unset; run the build under a virtual"
              + " display, e.g. `xvfb-run -a mvn -pl desktop-ui verify` (as .ci/run does)");
    }
  }

  /** Waits up to 15 s for {@code condition}, failing with {@code what} otherwise. */
  public static void await(String what, Callable<Boolean> condition) {
    try {
      WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, condition);
    } catch (TimeoutException e) {
      fail("timed out waiting until " + what);
    }
  }
}
