package dev.danmakuledger.bench.ingest;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Renders the ledger's records/s against records already stored, as a PNG (JFreeChart). */
public final class GrowthPlot {
  private GrowthPlot() {}

  /** Writes the chart of {@code windows} (each at its midpoint) to {@code file}. */
  public static void write(Path file, String subtitle, List<GrowthWindow> windows)
      throws IOException {
    XYSeries ledger = new XYSeries("danmaku ledger (HTTP, batches)");
    for (GrowthWindow w : windows) {
      ledger.add((w.from() + w.to()) / 2.0, w.perSecond());
    }
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            "e2e ingest rate as the store grows",
            "records sent so far (retries included)",
            "records/s",
            new XYSeriesCollection(ledger),
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    chart.addSubtitle(new TextTitle(subtitle));
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    renderer.setSeriesStroke(0, new BasicStroke(2f));
    renderer.setSeriesPaint(0, new Color(0xC0392B));
    plot.setRenderer(renderer);
    ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 540);
  }
}
