package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The e2e plot is a readable PNG and leaves out paths that were not measured. */
class ThroughputPlotTest {
  @TempDir Path dir;

  private static IngestBenchmark.Run run(double ours, double raw) {
    return new IngestBenchmark.Run(
        "test",
        new Measured("ours", 1000, 1000 / ours, 5, ""),
        List.of(
            new Measured("mariadb-raw-insert", 1000, 1000 / raw, 3, ""),
            Measured.notMeasured("nats-jetstream-msgid", "no NATS server")),
        900,
        100,
        "",
        List.of(),
        1.0);
  }

  @Test
  void writesAPngOfTheMeasuredSeries() throws Exception {
    System.setProperty("java.awt.headless", "true");
    Path png = dir.resolve("plot.png");
    ThroughputPlot.write(
        png,
        "4 devices",
        List.of(
            new ThroughputPlot.Point(100, run(2_000, 50_000)),
            new ThroughputPlot.Point(500, run(9_000, 30_000))));
    BufferedImage img = ImageIO.read(png.toFile());
    assertEquals(900, img.getWidth());
    assertEquals(540, img.getHeight());
    assertTrue(Files.size(png) > 10_000, "size " + Files.size(png));
  }
}
