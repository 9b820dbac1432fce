package dev.danmakuledger.ui.instances;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.InstanceList;
import dev.danmakuledger.ui.client.ApiException;
import dev.danmakuledger.ui.live.ConsoleContext;
import dev.danmakuledger.ui.live.LiveFeed;
import dev.danmakuledger.ui.live.SingleFlight;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;

/**
 * The instances view (docs/console.md, "Instances"): every sync-server instance in the registry
 * ({@code GET /admin/instances}) with its address, version, start, heartbeat age, UP/DOWN by
 * heartbeat age, batches per second and subscribers, reloaded at every poll. The list read last is
 * kept in the local history, so a console started during an outage shows it, marked stale.
 */
public final class InstancesViewModel implements LiveFeed {
  static final String SNAPSHOT = "instances";

  private final ConsoleContext context;
  private final SingleFlight flight = new SingleFlight(this::load);
  private final ReadOnlyListWrapper<InstanceRow> rows =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyIntegerWrapper up = new ReadOnlyIntegerWrapper();
  private final ReadOnlyIntegerWrapper down = new ReadOnlyIntegerWrapper();
  private final ReadOnlyStringWrapper problem = new ReadOnlyStringWrapper("");
  private boolean loaded;

  public InstancesViewModel(ConsoleContext context) {
    this.context = context;
  }

  /** The instances, UP first, newest heartbeat first (the server's order). */
  public ReadOnlyListProperty<InstanceRow> instances() {
    return rows.getReadOnlyProperty();
  }

  /** Instances with a recent heartbeat. */
  public ReadOnlyIntegerProperty up() {
    return up.getReadOnlyProperty();
  }

  /** Instances whose heartbeat is old. */
  public ReadOnlyIntegerProperty down() {
    return down.getReadOnlyProperty();
  }

  /**
   * Why the list could not be read while the rest of the server answers (e.g. its registry in Redis
   * is unreachable), in one sentence; empty otherwise.
   */
  public ReadOnlyStringProperty problem() {
    return problem.getReadOnlyProperty();
  }

  @Override
  public void restore() {
    context
        .async()
        .run(
            "instance history",
            () -> context.history().load(SNAPSHOT, InstanceList.class),
            last ->
                last.ifPresent(
                    s -> {
                      if (!loaded) {
                        show(s.value(), s.at());
                      }
                    }),
            e -> {});
  }

  @Override
  public void refresh() {
    flight.request();
  }

  @Override
  public void onEvent(AdminEvent event) {}

  private void load(Runnable done) {
    context
        .async()
        .run(
            "the instances",
            () -> {
              InstanceList list = context.client().instances();
              context.remember(SNAPSHOT, list);
              return list;
            },
            list -> {
              loaded = true;
              problem.set("");
              show(list, context.clock().instant());
              context.connection().succeeded();
              done.run();
            },
            (ApiException e) -> {
              if (e.kind() == ApiException.Kind.SERVER_ERROR) {
                // the server answers, only its registry does not: the other views stay live
                problem.set(e.plainMessage());
              } else {
                context.connection().failed(e);
              }
              done.run();
            });
  }

  private void show(InstanceList list, Instant at) {
    List<InstanceRow> out = new ArrayList<>(list.instances().size());
    for (InstanceList.Instance i : list.instances()) {
      out.add(InstanceRow.at(i, at));
    }
    rows.setAll(out);
    up.set((int) out.stream().filter(InstanceRow::up).count());
    down.set(out.size() - up.get());
  }
}
