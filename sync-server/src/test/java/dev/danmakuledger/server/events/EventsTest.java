package dev.danmakuledger.server.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.storage.AlertRow;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Alerts carry their kind in {@code data.kind}, where the console reads it (docs/console.md). */
final class EventsTest {
  @Test
  void anAlertStoresItsKindAndDataAndTheEventReadsThemBack() {
    AlertRow row =
        Events.alert(
            AlertKind.BAD_SIGNATURE,
            Severity.WARN,
            "kiosk-1",
            "bad",
            Map.of("reason", "UNKNOWN_KEY"),
            7);
    assertEquals("ALERT", row.type());
    assertEquals("{\"kind\":\"BAD_SIGNATURE\",\"reason\":\"UNKNOWN_KEY\"}", row.dataJson());
    AlertRow stored =
        new AlertRow(
            41, row.type(), row.severity(), row.deviceId(), null, row.message(), row.dataJson(), 7);
    AdminEvent e = Events.of(stored);
    assertEquals(Map.of("kind", "BAD_SIGNATURE", "reason", "UNKNOWN_KEY", "id", 41L), e.data());
    assertEquals("1970-01-01T00:00:00.007Z", e.at());
    assertEquals("kiosk-1", e.deviceId());
    assertEquals(AdminEvent.Type.ALERT, e.type());
    assertEquals(Severity.WARN, e.severity());
  }

  /** A row written by a newer instance sharing the database still lists, as UNKNOWN. */
  @Test
  void aStoredTypeOrSeverityThisBuildDoesNotKnowReadsAsUnknown() {
    AdminEvent e = Events.of(new AlertRow(5, "AUDIT", "EMERGENCY", "d", null, "m", null, 1));
    assertEquals(AdminEvent.Type.UNKNOWN, e.type());
    assertEquals(Severity.UNKNOWN, e.severity());
  }

  @Test
  void anAlertNeedsAKindThatItsDataCannotOverride() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            Events.alert(AlertKind.FORK, Severity.CRITICAL, "d", "m", Map.of("kind", "OTHER"), 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> Events.alert(null, Severity.CRITICAL, "d", "m", Map.of(), 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> Events.alert(AlertKind.FORK, Severity.UNKNOWN, "d", "m", Map.of(), 1));
  }

  @Test
  void storedDataThatIsNotAJsonObjectIsLeftOut() {
    for (String bad : new String[] {"[1,2]", "{\"kind\":", "not json"}) {
      AlertRow row = new AlertRow(3, "ALERT", "WARN", "d", null, "m", bad, 1);
      assertEquals(Map.of("id", 3L), Events.of(row).data(), bad);
    }
    AlertRow old = new AlertRow(4, "ALERT", "WARN", "d", null, "m", null, 1);
    assertEquals(Map.of("id", 4L), Events.of(old).data());
  }
}
