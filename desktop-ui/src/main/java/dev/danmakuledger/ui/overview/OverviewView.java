package dev.danmakuledger.ui.overview;

import dev.danmakuledger.protocol.wire.admin.Overview;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Label;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.RowConstraints;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

/** The overview tab: headline counters, two time series and three breakdowns. */
public final class OverviewView extends BorderPane {
  private static final DateTimeFormatter HM = DateTimeFormatter.ofPattern("HH:mm:ss");
  private static final Duration GAP = Duration.ofSeconds(30);

  private final ZoneId zone;
  private final FlowPane cards = new FlowPane(12, 12);
  private final XYChart.Series<Number, Number> throughput = new XYChart.Series<>();
  private final XYChart.Series<Number, Number> duplicateRate = new XYChart.Series<>();
  private final XYChart.Series<String, Number> layers = new XYChart.Series<>();
  private final XYChart.Series<String, Number> outcomes = new XYChart.Series<>();
  private final XYChart.Series<String, Number> rejects = new XYChart.Series<>();
  private final Label empty = new Label("No data yet.");
  private final Map<XYChart.Series<String, Number>, Node> noneYet = new IdentityHashMap<>();

  public OverviewView(OverviewViewModel vm, ZoneId zone) {
    this.zone = zone;
    setId("overview-view");
    setPadding(new Insets(12));
    cards.setId("overview-cards");
    empty.getStyleClass().add("muted");

    GridPane grid = new GridPane();
    grid.setHgap(12);
    grid.setVgap(12);
    for (int i = 0; i < 2; i++) {
      ColumnConstraints c = new ColumnConstraints();
      c.setPercentWidth(50);
      c.setHgrow(Priority.ALWAYS);
      grid.getColumnConstraints().add(c);
    }
    for (int i = 0; i < 2; i++) {
      RowConstraints r = new RowConstraints();
      r.setVgrow(Priority.ALWAYS);
      r.setPercentHeight(50);
      grid.getRowConstraints().add(r);
    }
    grid.add(timeChart("Throughput (records/s)", throughput, "throughput-chart", false), 0, 0);
    grid.add(
        timeChart("Duplicate rate (% of submissions)", duplicateRate, "duplicate-chart", true),
        1,
        0);
    grid.add(barChart("Duplicates caught per layer", layers, "layers-chart"), 0, 1);
    GridPane breakdown = new GridPane();
    breakdown.setHgap(12);
    ColumnConstraints half = new ColumnConstraints();
    half.setPercentWidth(50);
    breakdown.getColumnConstraints().addAll(half, half);
    RowConstraints full = new RowConstraints();
    full.setVgrow(Priority.ALWAYS);
    breakdown.getRowConstraints().add(full);
    breakdown.add(barChart("Outcomes by kind", outcomes, "outcomes-chart"), 0, 0);
    breakdown.add(barChart("Rejects by reason", rejects, "rejects-chart"), 1, 0);
    grid.add(breakdown, 1, 1);

    VBox top = new VBox(8, cards, empty);
    top.setPadding(new Insets(0, 0, 12, 0));
    setTop(top);
    setCenter(grid);

    vm.overview().addListener((obs, old, now) -> show(now));
    vm.throughput()
        .addListener((ListChangeListener<ChartPoint>) c -> plot(throughput, vm.throughput()));
    vm.duplicateRate()
        .addListener((ListChangeListener<ChartPoint>) c -> plot(duplicateRate, vm.duplicateRate()));
    show(vm.overview().get());
    plot(throughput, vm.throughput());
    plot(duplicateRate, vm.duplicateRate());
  }

  private void show(Overview o) {
    empty.setVisible(o == null);
    empty.setManaged(o == null);
    cards.getChildren().clear();
    if (o == null) {
      return;
    }
    cards
        .getChildren()
        .addAll(
            card("Throughput", String.format("%.1f rec/s", o.recordsPerSecond()), false),
            card("Batches", Long.toString(o.batches()), false),
            card("Devices", Long.toString(o.devices()), false),
            card("Rooms", Long.toString(o.rooms()), false),
            card("Conflicts", Long.toString(o.conflicts()), o.conflicts() > 0),
            card("Forks", Long.toString(o.forks()), o.forks() > 0),
            card("Bad signatures", Long.toString(o.signatureFailures()), o.signatureFailures() > 0),
            card("Alerts", Long.toString(o.alerts()), o.alerts() > 0));
    layers
        .getData()
        .setAll(
            List.of(
                new XYChart.Data<>("edge", o.duplicates().edge()),
                new XYChart.Data<>("redis", o.duplicates().redis()),
                new XYChart.Data<>("sql", o.duplicates().sql())));
    fitCounts(layers);
    bars(outcomes, o.outcomes());
    bars(rejects, o.rejectsByReason());
    for (XYChart.Series<String, Number> s : List.of(layers, outcomes, rejects)) {
      showNoneYet(s);
    }
  }

  /**
   * A count chart with nothing counted yet says so in words instead of drawing bare axes: the
   * chart's panel shows its title and "none yet" until a bar is above zero.
   */
  private void showNoneYet(XYChart.Series<String, Number> series) {
    boolean none = series.getData().stream().allMatch(d -> d.getYValue().longValue() == 0);
    series.getChart().setVisible(!none);
    noneYet.get(series).setVisible(none);
  }

  private static void bars(XYChart.Series<String, Number> series, Map<String, Long> counts) {
    series.getData().clear();
    new TreeMap<>(counts).forEach((k, v) -> series.getData().add(new XYChart.Data<>(k, v)));
    fitCounts(series);
  }

  /** Counts are whole numbers: the axis runs from 0 to a round bound in whole-number ticks. */
  private static void fitCounts(XYChart.Series<String, Number> series) {
    long max = 0;
    for (XYChart.Data<String, Number> d : series.getData()) {
      max = Math.max(max, d.getYValue().longValue());
    }
    NumberAxis y = (NumberAxis) series.getChart().getYAxis();
    double unit = countTickUnit(max);
    y.setTickUnit(unit);
    y.setUpperBound(Math.max(unit, Math.ceil(max / unit) * unit));
  }

  /** A tick unit of 1, 2 or 5 times a power of ten giving at most ten ticks up to {@code max}. */
  static double countTickUnit(long max) {
    double unit = 1;
    while (max / unit > 10) {
      for (double step : new double[] {2, 2.5, 2}) {
        unit *= step;
        if (max / unit <= 10) {
          break;
        }
      }
    }
    return unit;
  }

  private static VBox card(String title, String value, boolean alarm) {
    Label t = new Label(title);
    t.getStyleClass().add("card-title");
    Label v = new Label(value);
    v.getStyleClass().add("card-value");
    VBox box = new VBox(2, t, v);
    box.getStyleClass().add("card");
    if (alarm) {
      box.getStyleClass().add("card-alarm");
    }
    box.setId("card-" + title.toLowerCase(Locale.ROOT).replace(' ', '-'));
    return box;
  }

  /**
   * Draws {@code points} into the chart that holds {@code series}, starting a new line segment
   * wherever the console was not sampling for longer than {@link #GAP} (plus the interval a point
   * of the server's per-minute history covers), so an outage, a closed console or a minute no
   * instance sampled is not drawn as a straight line.
   */
  private void plot(XYChart.Series<Number, Number> series, List<ChartPoint> points) {
    XYChart<Number, Number> chart = series.getChart();
    chart.getData().setAll(List.of(series));
    series.getData().clear();
    XYChart.Series<Number, Number> segment = series;
    ChartPoint previous = null;
    for (ChartPoint p : points) {
      Duration allowed =
          GAP.plus(
              previous == null || p.step().compareTo(previous.step()) > 0
                  ? p.step()
                  : previous.step());
      if (previous != null && Duration.between(previous.at(), p.at()).compareTo(allowed) > 0) {
        segment = new XYChart.Series<>();
        chart.getData().add(segment);
      }
      segment.getData().add(new XYChart.Data<>(p.at().toEpochMilli() / 1000.0, p.value()));
      previous = p;
    }
    NumberAxis x = (NumberAxis) chart.getXAxis();
    if (points.isEmpty()) {
      return;
    }
    double first = points.get(0).at().getEpochSecond();
    double last = points.get(points.size() - 1).at().getEpochSecond() + 1;
    double span = Math.max(60, last - first);
    double unit = tickUnit(span / 6);
    x.setLowerBound(Math.floor(first / unit) * unit);
    x.setUpperBound(Math.ceil((first + span) / unit) * unit);
    x.setTickUnit(unit);
  }

  /** A whole number of seconds or minutes near {@code raw}, so tick labels never repeat. */
  static double tickUnit(double raw) {
    for (double u : new double[] {10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600}) {
      if (u >= raw) {
        return u;
      }
    }
    return 3600;
  }

  private LineChart<Number, Number> timeChart(
      String title, XYChart.Series<Number, Number> series, String id, boolean percent) {
    NumberAxis x = new NumberAxis();
    x.setAutoRanging(false);
    x.setMinorTickVisible(false);
    x.setForceZeroInRange(false);
    x.setTickLabelFormatter(
        new StringConverter<>() {
          @Override
          public String toString(Number n) {
            return HM.format(Instant.ofEpochSecond(n.longValue()).atZone(zone));
          }

          @Override
          public Number fromString(String s) {
            throw new UnsupportedOperationException("axis labels are not parsed");
          }
        });
    NumberAxis y = percent ? new NumberAxis(0, 100, 10) : new NumberAxis();
    y.setForceZeroInRange(true);
    LineChart<Number, Number> chart = new LineChart<>(x, y);
    chart.setTitle(title);
    chart.setId(id);
    chart.setAnimated(false);
    chart.setLegendVisible(false);
    chart.setCreateSymbols(false);
    chart.getData().add(series);
    chart.setMinHeight(180);
    return chart;
  }

  /** A bar chart of counts in a panel that says "none yet" while nothing is counted. */
  private StackPane barChart(String title, XYChart.Series<String, Number> series, String id) {
    Label heading = new Label(title);
    heading.getStyleClass().add("chart-title");
    Label none = new Label("none yet");
    none.getStyleClass().add("muted");
    VBox placeholder = new VBox(8, heading, none);
    placeholder.setAlignment(Pos.CENTER);
    placeholder.setId(id + "-none");
    BarChart<String, Number> chart = bars(title, series, id);
    chart.setVisible(false);
    noneYet.put(series, placeholder);
    return new StackPane(chart, placeholder);
  }

  private static BarChart<String, Number> bars(
      String title, XYChart.Series<String, Number> series, String id) {
    NumberAxis counts = new NumberAxis(0, 1, 1);
    counts.setMinorTickVisible(false);
    BarChart<String, Number> chart = new BarChart<>(new CategoryAxis(), counts);
    chart.setTitle(title);
    chart.setId(id);
    chart.setAnimated(false);
    chart.setLegendVisible(false);
    chart.getData().add(series);
    chart.setMinHeight(180);
    return chart;
  }
}
