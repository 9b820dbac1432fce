package dev.danmakuledger.ui.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.ui.testing.Harness;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AlertsViewModelTest {
  private final Harness h = new Harness();
  private final AlertsViewModel vm = new AlertsViewModel(h.context);

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void liveAlertsArePrependedOnceAndCounted() {
    h.json("alerts.json");
    vm.refresh();
    assertEquals(2, vm.alerts().size());
    assertEquals(1, vm.critical().get());
    AdminEvent sql =
        new AdminEvent(
            AdminEvent.Type.ALERT,
            AdminEvent.Severity.CRITICAL,
            null,
            null,
            "SQL unavailable",
            "2026-11-30T06:00:01Z",
            Map.of("kind", "SQL_OUTAGE"));
    vm.onEvent(sql);
    vm.onEvent(sql);
    vm.onEvent(
        new AdminEvent(
            AdminEvent.Type.DEVICE,
            AdminEvent.Severity.INFO,
            "k",
            null,
            "ok",
            "2026-11-30T06:00:01Z",
            null));
    assertEquals(3, vm.alerts().size());
    assertEquals(sql, vm.alerts().get(0));
    assertEquals(2, vm.critical().get());
  }

  /** A newer server's values read as UNKNOWN: listed as they come, never counted as critical. */
  @Test
  void anAlertOfAnUnknownSeverityIsListedAndAnEventOfAnUnknownTypeIsNot() {
    h.json("alerts.json");
    vm.refresh();
    vm.onEvent(
        new AdminEvent(
            AdminEvent.Type.ALERT,
            AdminEvent.Severity.UNKNOWN,
            "k",
            null,
            "a newer severity",
            "2026-11-30T06:00:02Z",
            Map.of()));
    vm.onEvent(
        new AdminEvent(
            AdminEvent.Type.UNKNOWN,
            AdminEvent.Severity.CRITICAL,
            "k",
            null,
            "a newer type",
            "2026-11-30T06:00:03Z",
            Map.of()));
    assertEquals(3, vm.alerts().size());
    assertEquals("a newer severity", vm.alerts().get(0).message());
    assertEquals(1, vm.critical().get());
  }
}
