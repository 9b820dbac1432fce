package dev.danmakuledger.ui.overview;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.ui.client.ApiException;
import dev.danmakuledger.ui.history.HistoryException;
import dev.danmakuledger.ui.history.OverviewSample;
import dev.danmakuledger.ui.history.Stamped;
import dev.danmakuledger.ui.live.ConsoleContext;
import dev.danmakuledger.ui.live.LiveFeed;
import dev.danmakuledger.ui.live.SingleFlight;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The overview (docs/console.md): the server's counters from {@code GET /admin/overview}, and
 * throughput and duplicate-rate series over the last {@link #WINDOW}, sampled at every refresh and
 * kept in the local history so the charts survive restarts.
 */
public final class OverviewViewModel implements LiveFeed {
  /** How far back the charts reach. */
  public static final Duration WINDOW = Duration.ofMinutes(30);

  static final String SNAPSHOT = "overview";
  private static final Logger log = LoggerFactory.getLogger(OverviewViewModel.class);

  private final ConsoleContext context;
  private final SingleFlight flight = new SingleFlight(this::load);
  private final ReadOnlyObjectWrapper<Overview> overview = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyListWrapper<ChartPoint> throughput =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyListWrapper<ChartPoint> duplicateRate =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private volatile List<OverviewSample> samples = List.of();

  public OverviewViewModel(ConsoleContext context) {
    this.context = context;
  }

  /** The latest counters; null until something was loaded or restored. */
  public ReadOnlyObjectProperty<Overview> overview() {
    return overview.getReadOnlyProperty();
  }

  /** Records per second over time. */
  public ReadOnlyListProperty<ChartPoint> throughput() {
    return throughput.getReadOnlyProperty();
  }

  /** Share of submissions that were duplicates over time, percent. */
  public ReadOnlyListProperty<ChartPoint> duplicateRate() {
    return duplicateRate.getReadOnlyProperty();
  }

  @Override
  public void restore() {
    context
        .async()
        .run(
            "overview history",
            () -> {
              Instant since = context.clock().instant().minus(WINDOW);
              return new Restored(
                  context.history().load(SNAPSHOT, Overview.class),
                  context.history().samplesSince(since));
            },
            r -> {
              if (overview.get() == null && r.last().isPresent()) {
                overview.set(r.last().get().value());
                context.connection().restored(r.last().get().at());
              }
              if (samples.isEmpty()) {
                showSamples(r.samples());
              }
            },
            e -> log.warn("cannot restore the overview: {}", e.getMessage()));
  }

  @Override
  public void refresh() {
    flight.request();
  }

  @Override
  public void onEvent(AdminEvent event) {
    if ("OVERVIEW".equals(event.type()) || "ALERT".equals(event.type())) {
      flight.request();
    }
  }

  private void load(Runnable done) {
    context
        .async()
        .run(
            "the overview",
            () -> {
              Overview o = context.client().overview();
              Instant now = context.clock().instant();
              List<OverviewSample> window;
              try {
                context.history().record(Series.sample(now, o));
                context.history().prune(now.minus(Duration.ofDays(7)));
                window = context.history().samplesSince(now.minus(WINDOW));
              } catch (HistoryException e) {
                log.warn("overview history unavailable: {}", e.getMessage());
                window = appendInMemory(Series.sample(now, o), now);
              }
              context.remember(SNAPSHOT, o);
              return new Loaded(o, window);
            },
            loaded -> {
              overview.set(loaded.overview());
              showSamples(loaded.window());
              context.connection().succeeded();
              done.run();
            },
            (ApiException e) -> {
              context.connection().failed(e);
              done.run();
            });
  }

  private List<OverviewSample> appendInMemory(OverviewSample s, Instant now) {
    List<OverviewSample> out = new ArrayList<>();
    for (OverviewSample old : samples) {
      if (!old.at().isBefore(now.minus(WINDOW))) {
        out.add(old);
      }
    }
    out.add(s);
    return out;
  }

  private void showSamples(List<OverviewSample> window) {
    samples = List.copyOf(window);
    throughput.setAll(Series.throughput(samples));
    duplicateRate.setAll(Series.duplicateRate(samples));
  }

  private record Restored(Optional<Stamped<Overview>> last, List<OverviewSample> samples) {}

  private record Loaded(Overview overview, List<OverviewSample> window) {}
}
