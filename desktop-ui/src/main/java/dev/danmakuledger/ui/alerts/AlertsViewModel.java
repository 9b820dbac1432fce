package dev.danmakuledger.ui.alerts;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.AlertList;
import dev.danmakuledger.ui.live.ConsoleContext;
import dev.danmakuledger.ui.live.LiveFeed;
import dev.danmakuledger.ui.live.SingleFlight;
import java.util.ArrayList;
import java.util.List;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;

/**
 * The alerts view (docs/console.md, "Alerts"): forks, tamper evidence, bad signatures and Redis/SQL
 * outages from {@code GET /admin/alerts}, newest first, with ALERT events from the live feed added
 * as they arrive. Alerts the console raises itself (a room log's split view, from {@code
 * RoomLogsViewModel}) are listed first, since no server can be trusted to report its own split
 * view.
 */
public final class AlertsViewModel implements LiveFeed {
  /** How many alerts the view keeps. */
  public static final int MAX = 1000;

  static final String SNAPSHOT = "alerts";

  private final ConsoleContext context;
  private final SingleFlight flight = new SingleFlight(this::load);
  private final ReadOnlyBooleanWrapper loadedOnce = new ReadOnlyBooleanWrapper();
  private final ReadOnlyListWrapper<AdminEvent> alerts =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyIntegerWrapper critical = new ReadOnlyIntegerWrapper();
  private final ObservableList<AdminEvent> local;
  private final List<AdminEvent> fromServer = new ArrayList<>();
  private boolean loaded;

  public AlertsViewModel(ConsoleContext context) {
    this(context, FXCollections.observableArrayList());
  }

  /**
   * @param local alerts the console raised itself, shown before the server's and kept current
   */
  public AlertsViewModel(ConsoleContext context, ObservableList<AdminEvent> local) {
    this.context = context;
    this.local = local;
    local.addListener((ListChangeListener<AdminEvent>) c -> merge());
  }

  /** Alerts, newest first. */
  public ReadOnlyListProperty<AdminEvent> alerts() {
    return alerts.getReadOnlyProperty();
  }

  /** How many of them are CRITICAL. */
  public ReadOnlyIntegerProperty critical() {
    return critical.getReadOnlyProperty();
  }

  /** True once the server's list was read at least once. */
  public ReadOnlyBooleanProperty loadedOnce() {
    return loadedOnce.getReadOnlyProperty();
  }

  @Override
  public void restore() {
    context
        .async()
        .run(
            "alert history",
            () -> context.history().load(SNAPSHOT, AlertList.class),
            last ->
                last.ifPresent(
                    s -> {
                      if (!loaded) {
                        show(s.value());
                        context.connection().restored(s.at());
                      }
                    }),
            e -> {});
  }

  @Override
  public void refresh() {
    flight.request();
  }

  @Override
  public void onEvent(AdminEvent event) {
    if (event.type() != AdminEvent.Type.ALERT || fromServer.contains(event)) {
      return;
    }
    fromServer.add(0, event);
    if (fromServer.size() > MAX) {
      fromServer.subList(MAX, fromServer.size()).clear();
    }
    merge();
  }

  private void load(Runnable done) {
    context
        .async()
        .run(
            "the alerts",
            () -> {
              AlertList list = context.client().alerts();
              context.remember(SNAPSHOT, list);
              return list;
            },
            list -> {
              loaded = true;
              loadedOnce.set(true);
              show(list);
              context.connection().succeeded();
              done.run();
            },
            e -> {
              context.connection().failed(e);
              done.run();
            });
  }

  private void show(AlertList list) {
    List<AdminEvent> next =
        list.alerts().size() > MAX ? list.alerts().subList(0, MAX) : list.alerts();
    fromServer.clear();
    fromServer.addAll(next);
    merge();
  }

  private void merge() {
    List<AdminEvent> next = new ArrayList<>(local);
    next.addAll(fromServer);
    if (!alerts.equals(next)) {
      alerts.setAll(next);
    }
    count();
  }

  private void count() {
    critical.set(
        (int) alerts.stream().filter(a -> a.severity() == AdminEvent.Severity.CRITICAL).count());
  }
}
