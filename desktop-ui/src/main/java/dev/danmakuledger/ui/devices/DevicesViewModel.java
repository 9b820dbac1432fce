package dev.danmakuledger.ui.devices;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.DeviceList;
import dev.danmakuledger.protocol.wire.admin.DeviceQueue;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.ui.live.ConsoleContext;
import dev.danmakuledger.ui.live.Format;
import dev.danmakuledger.ui.live.LiveFeed;
import dev.danmakuledger.ui.live.SingleFlight;
import java.util.Locale;
import java.util.function.Predicate;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/**
 * The devices table (docs/console.md, "Devices"): every enrolled device from {@code GET
 * /admin/devices} with its verification status and, beside it, the count of checkpoints for it that
 * failed verification (unauthenticated attempts, which never change the status), the upload queue
 * the device last reported (oldest unsynced capture, last sync attempt; "unknown" for a device that
 * never reported one) and whether it is STUCK, filtered by a free-text filter over device id and
 * status.
 */
public final class DevicesViewModel implements LiveFeed {
  static final String SNAPSHOT = "devices";

  private final ConsoleContext context;
  private final SingleFlight flight = new SingleFlight(this::load);
  private final ObservableList<DeviceSummary> all = FXCollections.observableArrayList();
  private final FilteredList<DeviceSummary> filtered = new FilteredList<>(all, d -> true);
  private final ReadOnlyListWrapper<DeviceSummary> shown = new ReadOnlyListWrapper<>(filtered);
  private final ReadOnlyStringWrapper filter = new ReadOnlyStringWrapper("");
  private final ReadOnlyIntegerWrapper needAttention = new ReadOnlyIntegerWrapper();
  private final ReadOnlyIntegerWrapper withBadSignatures = new ReadOnlyIntegerWrapper();
  private final ReadOnlyIntegerWrapper stuck = new ReadOnlyIntegerWrapper();
  private boolean loaded;

  public DevicesViewModel(ConsoleContext context) {
    this.context = context;
  }

  /** The devices that pass the filter. */
  public ReadOnlyListProperty<DeviceSummary> devices() {
    return shown.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty filter() {
    return filter.getReadOnlyProperty();
  }

  /** Devices whose status is anything but VERIFIED. */
  public ReadOnlyIntegerProperty needAttention() {
    return needAttention.getReadOnlyProperty();
  }

  /** Devices for which someone sent checkpoints that did not verify (whatever their status). */
  public ReadOnlyIntegerProperty withBadSignatures() {
    return withBadSignatures.getReadOnlyProperty();
  }

  /** Devices in an open STUCK episode: syncing while their upload queue does not drain. */
  public ReadOnlyIntegerProperty stuck() {
    return stuck.getReadOnlyProperty();
  }

  /** True when the device is in an open STUCK episode. */
  public static boolean isStuck(DeviceSummary d) {
    return d.queue() != null && d.queue().stuck();
  }

  /**
   * The age of the device's oldest unsynced capture: "unknown" when it never reported its queue (an
   * older agent), "none" when its queue was empty.
   */
  public static String oldestUnsynced(DeviceSummary d) {
    DeviceQueue q = d.queue();
    if (q == null) {
      return UNKNOWN;
    }
    return q.oldestUnsyncedAgeMs() == null ? "none" : Format.age(q.oldestUnsyncedAgeMs() / 1000);
  }

  /** The last sync attempt as "outcome, age ago"; "unknown" when the device reported none. */
  public static String lastAttempt(DeviceSummary d) {
    DeviceQueue q = d.queue();
    if (q == null || q.lastAttemptOutcome() == null || q.lastAttemptAgeMs() == null) {
      return UNKNOWN;
    }
    return q.lastAttemptOutcome() + ", " + Format.age(q.lastAttemptAgeMs() / 1000) + " ago";
  }

  /**
   * Who vouches for the queue columns: "signed" (the device's key, docs/sync.md "Signed reports"),
   * "unsigned" (an older agent: shown, but it raises no alert), or "unknown" (no report, or a
   * server that does not say).
   */
  public static String report(DeviceSummary d) {
    DeviceQueue q = d.queue();
    if (q == null || q.signed() == null) {
      return UNKNOWN;
    }
    return q.signed() ? "signed" : "unsigned";
  }

  /** What the queue columns show for a device that never reported its queue. */
  public static final String UNKNOWN = "unknown";

  /**
   * Shows only devices whose id contains {@code text} or whose status starts with it, ignoring
   * case; blank shows all.
   */
  public void setFilter(String text) {
    String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
    filter.set(t);
    Predicate<DeviceSummary> p =
        t.isEmpty()
            ? d -> true
            : d ->
                d.deviceId().toLowerCase(Locale.ROOT).contains(t)
                    || d.status().name().toLowerCase(Locale.ROOT).startsWith(t);
    filtered.setPredicate(p);
  }

  @Override
  public void restore() {
    context
        .async()
        .run(
            "device history",
            () -> context.history().load(SNAPSHOT, DeviceList.class),
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
    if (event.type() == AdminEvent.Type.DEVICE || event.deviceId() != null) {
      flight.request();
    }
  }

  private void load(Runnable done) {
    context
        .async()
        .run(
            "the devices",
            () -> {
              DeviceList list = context.client().devices();
              context.remember(SNAPSHOT, list);
              return list;
            },
            list -> {
              loaded = true;
              show(list);
              context.connection().succeeded();
              done.run();
            },
            e -> {
              context.connection().failed(e);
              done.run();
            });
  }

  private void show(DeviceList list) {
    if (!all.equals(list.devices())) {
      all.setAll(list.devices());
    }
    needAttention.set(
        (int) all.stream().filter(d -> d.status() != DeviceSummary.Status.VERIFIED).count());
    withBadSignatures.set((int) all.stream().filter(d -> d.badSignatureAttempts() > 0).count());
    stuck.set((int) all.stream().filter(DevicesViewModel::isStuck).count());
  }
}
