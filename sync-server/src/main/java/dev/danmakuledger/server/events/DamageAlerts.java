package dev.danmakuledger.server.events;

import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.storage.AlertRow;
import dev.danmakuledger.server.storage.DamagedRowException;
import dev.danmakuledger.server.storage.LedgerStore;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Raises a CRITICAL {@code DAMAGED_ROW} alert for a stored row that does not decode
 * (docs/operations.md, "Alerts and quarantine"), once per row and instance however often requests
 * or the room-log integrator meet it, so that a damaged row read by every poll of a viewer is one
 * alert, not a flood. Thread-safe.
 */
public final class DamageAlerts {
  private static final Logger log = LoggerFactory.getLogger(DamageAlerts.class);

  /** Rows remembered as alerted; past this many the memory starts over (a row may alert again). */
  static final int MAX_REMEMBERED = 10_000;

  private final LedgerStore store;
  private final AdminHub admin;
  private final Clock clock;
  private final Set<String> alerted = ConcurrentHashMap.newKeySet();

  public DamageAlerts(LedgerStore store, AdminHub admin, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.admin = Objects.requireNonNull(admin, "admin");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Alerts the operators to the damaged row, unless this instance already did. */
  public void report(DamagedRowException damaged) {
    String row = damaged.table() + " " + damaged.key();
    if (alerted.size() >= MAX_REMEMBERED) {
      alerted.clear();
    }
    if (!alerted.add(row)) {
      return;
    }
    try {
      AlertRow alert =
          store.insertAlert(
              Events.alert(
                  AlertKind.DAMAGED_ROW,
                  Severity.CRITICAL,
                  null,
                  damaged.getMessage()
                      + "; requests that need this row fail until it is restored from a backup",
                  Map.of("table", damaged.table(), "row", damaged.key()),
                  clock.millis()));
      admin.publish(Events.of(alert));
    } catch (RuntimeException e) {
      alerted.remove(row);
      log.error("cannot store the alert for damaged row {}: {}", row, e.toString());
    }
  }
}
