package dev.danmakuledger.ui.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Bounded waits for the TestFX UI tests. The tests run on the headless Monocle glass platform
 * (configured in this module's POM), so they need no X display.
 */
public final class Display {
  private Display() {}

  /** Waits up to 15 s for {@code condition}, failing with {@code what} otherwise. */
  public static void await(String what, Callable<Boolean> condition) {
    try {
      WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, condition);
    } catch (TimeoutException e) {
      fail("timed out waiting until " + what);
    }
  }
}
