package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Windows of the ledger's rate as the store grows, and their plot. */
class GrowthWindowsTest {
  private static final long SECOND = 1_000_000_000L;

  @TempDir Path dir;

  @Test
  void eachWindowIsTimedFromTheEndOfTheOneBefore() {
    GrowthWindows g = GrowthWindows.of(1_000_000, 10, 0);
    // 100k in the first second, then 100k every 2 s
    g.add(100_000, SECOND);
    for (int i = 1; i < 10; i++) {
      g.add(50_000, SECOND + (2L * i - 1) * SECOND);
      g.add(50_000, SECOND + 2L * i * SECOND);
    }
    List<GrowthWindow> w = g.windows();
    assertEquals(10, w.size());
    assertEquals(0, w.get(0).from());
    assertEquals(100_000, w.get(0).to());
    assertEquals(100_000, w.get(0).perSecond(), 1e-6);
    assertEquals(900_000, w.get(9).from());
    assertEquals(50_000, w.get(9).perSecond(), 1e-6);
  }

  @Test
  void aBatchCrossingSeveralWindowsEndsThemAllAndUnfinishedWindowsAreLeftOut() {
    GrowthWindows g = GrowthWindows.of(1_000_000, 10, 0);
    g.add(250_000, 5 * SECOND);
    List<GrowthWindow> w = g.windows();
    assertEquals(2, w.size(), "the third window has not ended");
    assertEquals(20_000, w.get(0).perSecond(), 1e-6);
    assertTrue(w.get(1).perSecond() > 1e12, "ended at the same instant: no time, huge rate");
  }

  @Test
  void shortRunsHaveNoWindowsAndFewerThanTwoAreRefused() {
    GrowthWindows g = GrowthWindows.of(100_000, 10, 0);
    g.add(100_000, SECOND);
    assertEquals(List.of(), g.windows());
    assertThrows(IllegalArgumentException.class, () -> GrowthWindows.of(1_000_000, 1, 0));
  }

  @Test
  void thePlotIsAReadablePng() throws Exception {
    System.setProperty("java.awt.headless", "true");
    Path png = dir.resolve("growth.png");
    GrowthPlot.write(
        png,
        "test",
        List.of(new GrowthWindow(0, 100_000, 40_000), new GrowthWindow(100_000, 200_000, 38_000)));
    BufferedImage img = ImageIO.read(png.toFile());
    assertEquals(900, img.getWidth());
    assertEquals(540, img.getHeight());
  }
}
