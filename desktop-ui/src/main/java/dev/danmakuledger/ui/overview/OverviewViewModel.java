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
 * throughput and duplicate-rate series over the last {@link #WINDOW}. On open, the charts load the
 * cluster's last hour from {@code GET /admin/history} (one point per minute, summed over instances:
 * what happened before this console was opened), then continue with the samples this console takes
 * at every refresh. Against a server without that history, the charts show the samples kept in the
 * local history from earlier sessions instead.
 */
public final class OverviewViewModel implements LiveFeed {
  /** How far back the charts reach. */
  public static final Duration WINDOW = Duration.ofMinutes(60);

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
  private Series.Charts serverHistory;
  private Instant sessionStart;
  private volatile boolean historyWanted = true;

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
    if (event.type() == AdminEvent.Type.OVERVIEW || event.type() == AdminEvent.Type.ALERT) {
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
              Series.Charts history = historyWanted ? serverHistory() : null;
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
              return new Loaded(o, window, history, now);
            },
            loaded -> {
              if (sessionStart == null) {
                sessionStart = loaded.at();
              }
              if (loaded.history() != null) {
                serverHistory = loaded.history();
              }
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

  /**
   * The cluster's last {@link #WINDOW} from the server, or null when it cannot be had: asked again
   * at the next load only when the server was unreachable (an older server without the endpoint, or
   * one that refuses it, is not asked again).
   */
  private Series.Charts serverHistory() {
    try {
      Series.Charts charts = Series.fromHistory(context.client().history((int) WINDOW.toMinutes()));
      historyWanted = false;
      return charts;
    } catch (ApiException e) {
      if (e.kind() != ApiException.Kind.UNREACHABLE) {
        historyWanted = false;
      }
      log.info("the server's history is not available: {}", e.getMessage());
      return null;
    }
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

  /**
   * Shows {@code window}; with the server's history, only this session's samples follow it (the
   * server's minutes cover what earlier sessions sampled), cut to the last {@link #WINDOW}.
   */
  private void showSamples(List<OverviewSample> window) {
    samples = List.copyOf(window);
    if (serverHistory == null || sessionStart == null) {
      throughput.setAll(Series.throughput(samples));
      duplicateRate.setAll(Series.duplicateRate(samples));
      return;
    }
    List<OverviewSample> session = new ArrayList<>();
    for (OverviewSample s : samples) {
      if (!s.at().isBefore(sessionStart)) {
        session.add(s);
      }
    }
    Series.Charts all =
        serverHistory.before(
            sessionStart, Series.throughput(session), Series.duplicateRate(session));
    Instant from = context.clock().instant().minus(WINDOW);
    throughput.setAll(all.throughput().stream().filter(p -> !p.at().isBefore(from)).toList());
    duplicateRate.setAll(all.duplicateRate().stream().filter(p -> !p.at().isBefore(from)).toList());
  }

  private record Restored(Optional<Stamped<Overview>> last, List<OverviewSample> samples) {}

  private record Loaded(
      Overview overview, List<OverviewSample> window, Series.Charts history, Instant at) {}
}
