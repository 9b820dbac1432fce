package dev.danmakuledger.bench.ingest;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Renders e2e throughput against batch size, one line per path, as a PNG (JFreeChart). */
public final class ThroughputPlot {
  private static final Color[] PALETTE = {
    new Color(0xC0392B),
    new Color(0x2E5EAA),
    new Color(0x1E8449),
    new Color(0x7D3C98),
    new Color(0xB9770E),
    new Color(0x17202A)
  };

  private ThroughputPlot() {}

  /** One point: a batch size and the run measured with it. */
  public record Point(int batchSize, IngestBenchmark.Run run) {}

  /** Writes the chart to {@code file}; paths that were not measured are left out. */
  public static void write(Path file, String subtitle, List<Point> points) throws IOException {
    Map<String, XYSeries> series = new LinkedHashMap<>();
    for (Point p : points) {
      add(series, "danmaku ledger (HTTP, batches)", p.batchSize(), p.run().ours());
      for (Measured b : p.run().baselines()) {
        add(series, b.name(), p.batchSize(), b);
      }
    }
    XYSeriesCollection data = new XYSeriesCollection();
    series.values().forEach(data::addSeries);
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            "e2e ingest throughput vs batch size",
            "batch size (records)",
            "records/s (log scale)",
            data,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    chart.addSubtitle(new org.jfree.chart.title.TextTitle(subtitle));
    XYPlot plot = chart.getXYPlot();
    LogarithmicAxis y = new LogarithmicAxis("records/s (log scale)");
    y.setStrictValuesFlag(false);
    plot.setRangeAxis(y);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      renderer.setSeriesStroke(i, new BasicStroke(2f));
      renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
    }
    plot.setRenderer(renderer);
    ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 540);
  }

  private static void add(Map<String, XYSeries> series, String name, int x, Measured m) {
    if (!m.measured()) {
      return;
    }
    series.computeIfAbsent(name, XYSeries::new).add(x, m.perSecond());
  }
}
