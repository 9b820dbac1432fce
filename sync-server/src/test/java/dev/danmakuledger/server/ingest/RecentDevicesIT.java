package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.RetryPolicy;
import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.WireRecord;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.AlertKind;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.DeviceStatus;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.testkit.TestDevice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A device's next batch starts from the row its last batch committed on this instance left ({@link
 * RecentDevices}); the row's optimistic lock decides when another instance or an operator moved it
 * on since, and the batch is then answered as it would have been from SQL.
 */
class RecentDevicesIT {
  private static final AtomicInteger RUNS = new AtomicInteger();

  private RedisFixture redis;
  private DedupeScripts scripts;
  private Database db;
  private LedgerStore store;
  private MutableClock clock;
  private final List<MessageIds> ids = new ArrayList<>();
  private BatchIngest a;
  private BatchIngest b;

  @BeforeEach
  void start() throws Exception {
    redis = RedisFixture.embedded();
    scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.defaults());
    clock = MutableClock.running();
    db =
        Database.open(
            "jdbc:h2:mem:recent"
                + RUNS.incrementAndGet()
                + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1",
            null,
            null);
    store = new LedgerStore(db, clock);
    a = instance("a");
    b = instance("b");
  }

  private BatchIngest instance(String name) {
    MessageIds leased = MessageIds.lease(scripts, "recent-" + name, Duration.ofMinutes(1), clock);
    ids.add(leased);
    return IngestFixtures.ingest(store, db, scripts, leased, clock);
  }

  @AfterEach
  void stop() {
    a.close();
    b.close();
    ids.forEach(MessageIds::close);
    db.close();
    scripts.close();
    redis.close();
  }

  private TestDevice enrolled(String id) {
    return IngestFixtures.enrolled(store, clock, id);
  }

  private static IngestResult send(BatchIngest on, BatchRequest batch, TestDevice d) {
    List<byte[]> bytes = new ArrayList<>();
    for (WireRecord w : batch.records()) {
      bytes.add(Base64.getDecoder().decode(w.canonical()));
    }
    return on.ingest(d.id, batch.oldSize(), bytes, batch.checkpoint(), null);
  }

  private static BatchRequest two(TestDevice d, String text) {
    return d.batch(d.record("room", "u", text + " 1"), d.record("room", "u", text + " 2"));
  }

  @Test
  void aLostReplyResentToTheInstanceThatRemembersAnOlderRowIsAnsweredFromTheStoredOutcomes() {
    TestDevice d = enrolled("resent");
    send(a, two(d, "first"), d); // a remembers the row at size 2
    BatchRequest second = two(d, "second");
    BatchResponse committed = send(b, second, d).response(); // b moves it to size 4

    IngestResult again = send(a, second, d); // the reply was lost; the device sends it to a

    assertTrue(again.replayed(), "answered from what b stored");
    assertEquals(4, again.response().verifiedSize());
    assertEquals(outcomes(committed), outcomes(again.response()));
    IngestResult third = send(a, two(d, "third"), d); // and a goes on from SQL's row
    assertFalse(third.replayed());
    assertEquals(6, third.response().verifiedSize());
    assertEquals(6, store.roomPage("room", 0, 100).size(), "every record once");
  }

  @Test
  void aDeviceQuarantinedSinceItsLastBatchHereIsRefusedAndNothingOfTheBatchIsStored() {
    TestDevice d = enrolled("quarantined");
    send(a, two(d, "first"), d); // a remembers the row as active
    store.quarantine(
        d.id,
        "operator",
        Map.of(),
        Events.alert(
            AlertKind.FORK, Severity.CRITICAL, d.id, "quarantined", Map.of(), clock.millis()));

    BatchRequest next = two(d, "second");
    LedgerException refused = assertThrows(LedgerException.class, () -> send(a, next, d));

    assertEquals(ErrorCode.DEVICE_QUARANTINED, refused.code());
    assertEquals(2, store.device(d.id).orElseThrow().verifiedSize());
    assertEquals(DeviceStatus.QUARANTINED, store.device(d.id).orElseThrow().status());
    assertEquals(2, store.roomPage("room", 0, 100).size());
  }

  @Test
  void batchesAlternatingBetweenInstancesAllCommitOnce() {
    TestDevice d = enrolled("alternating");
    for (int i = 0; i < 6; i++) {
      IngestResult r = send(i % 2 == 0 ? a : b, two(d, "batch " + i), d);
      assertFalse(r.replayed());
      assertEquals(2L * (i + 1), r.response().verifiedSize());
    }
    assertEquals(12, store.roomPage("room", 0, 100).size());
  }

  private static List<String> outcomes(BatchResponse r) {
    List<String> out = new ArrayList<>();
    for (RecordOutcome o : r.outcomes()) {
      out.add(o.index() + " " + o.outcome() + " " + o.seq());
    }
    return out;
  }
}
