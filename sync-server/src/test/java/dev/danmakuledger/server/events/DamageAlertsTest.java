package dev.danmakuledger.server.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.server.storage.AlertRow;
import dev.danmakuledger.server.storage.DamagedRowException;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.LedgerStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One stored and published CRITICAL alert per damaged row, however often it is met. */
final class DamageAlertsTest {
  @TempDir Path dir;
  private Database db;
  private LedgerStore store;

  @BeforeEach
  void open() {
    db = Database.open(Database.h2Url(dir), null, null);
    store = new LedgerStore(db, Clock.systemUTC());
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void eachDamagedRowIsAlertedOnce() {
    AdminHub admin = new AdminHub();
    List<AdminEvent> events = new ArrayList<>();
    admin.subscribe(events::add);
    DamageAlerts alerts = new DamageAlerts(store, admin, Clock.systemUTC());

    DamagedRowException bundle = new DamagedRowException("device_bundles", "(d, 0)", "cut short");
    alerts.report(bundle);
    alerts.report(new DamagedRowException("device_bundles", "(d, 0)", "cut short again"));
    alerts.report(new DamagedRowException("room_tiles", "(r, hash, 0, 0, 3)", "3 bytes"));

    List<AlertRow> stored = store.alerts(10);
    assertEquals(2, stored.size());
    AlertRow first = stored.get(1); // newest first
    assertEquals("CRITICAL", first.severity());
    assertNull(first.deviceId());
    assertEquals(
        "device_bundles row (d, 0) is damaged: cut short; requests that need this row fail until"
            + " it is restored from a backup",
        first.message());
    assertEquals(2, events.size());
    assertEquals("DAMAGED_ROW", events.get(0).data().get("kind"));
    assertEquals("device_bundles", events.get(0).data().get("table"));
    assertEquals("(d, 0)", events.get(0).data().get("row"));
    assertEquals("(r, hash, 0, 0, 3)", events.get(1).data().get("row"));
  }

  @Test
  void findsTheDamagedRowBehindOtherExceptions() {
    DamagedRowException d = new DamagedRowException("room_tiles", "(r)", "x");
    assertEquals(d, DamagedRowException.in(new RuntimeException(new IllegalStateException(d))));
    assertNull(DamagedRowException.in(new RuntimeException("other")));
    assertNull(DamagedRowException.in(null));
  }
}
