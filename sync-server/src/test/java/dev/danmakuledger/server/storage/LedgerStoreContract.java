package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.server.ingest.GapSealer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The storage contract (docs/architecture.md §6: one storage contract suite, run against every
 * backend, after Trillian's storage/testonly): every backend must pass exactly these tests.
 */
abstract class LedgerStoreContract {
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);

  Database db;
  LedgerStore store;
  final String run = UUID.randomUUID().toString().substring(0, 8);

  /** Opens a migrated, empty database of the backend under test. */
  abstract Database openDatabase() throws Exception;

  /** Releases what {@link #openDatabase()} created. */
  abstract void dropDatabase() throws Exception;

  @BeforeEach
  void open() throws Exception {
    db = openDatabase();
    store = new LedgerStore(db, CLOCK);
  }

  @AfterEach
  void close() throws Exception {
    db.close();
    dropDatabase();
  }

  static byte[] bytes(int fill, int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) fill);
    return b;
  }

  DeviceRow enrolled(String id) throws DeviceExistsException {
    return store.enroll(
        DeviceRow.enrolled(id, bytes(7, 32), "vk+" + id, bytes(0, 17), bytes(1, 32), 1000));
  }

  static MessageRow message(String room, long seq, String key, String text, MessageStatus status) {
    return new MessageRow(
        room,
        seq,
        1_000_000L + seq + room.hashCode() * 10_000L,
        key,
        "h" + text.hashCode(),
        "dev",
        seq - 1,
        "user",
        text,
        null,
        1,
        0xFF0000,
        25,
        42,
        status,
        null,
        0);
  }

  DeviceRow advanced(DeviceRow d, long size) {
    return new DeviceRow(
        d.id(),
        d.publicKey(),
        d.verifierKey(),
        d.status(),
        d.statusReason(),
        size,
        size,
        bytes(size == 0 ? 0 : 3, 17),
        bytes(9, 32),
        "cp" + size,
        "receipt" + size,
        1L,
        2L,
        3L,
        -5L,
        d.signatureFailures(),
        new EdgeCounters(10, 3, 2, 1),
        d.version() + 1,
        d.createdAt());
  }

  BatchCommit commitOf(DeviceRow before, long size, List<MessageRow> messages) {
    List<DeviceRecordRow> records = new ArrayList<>();
    for (long i = before.verifiedSize(); i < size; i++) {
      records.add(
          new DeviceRecordRow(
              before.id(),
              i,
              "k" + run + i,
              bytes((int) i, 40),
              Outcome.CONFIRMED,
              "r",
              i + 1,
              i,
              null,
              null));
    }
    List<NodeRow> nodes = List.of(new NodeRow(0, before.verifiedSize(), bytes(5, 32)));
    Map<String, Long> counters = new HashMap<>();
    counters.put(Counter.BATCHES.key(), 1L);
    counters.put(Counter.RECORDS.key(), size - before.verifiedSize());
    return new BatchCommit(
        before.version(),
        before.verifiedSize(),
        advanced(before, size),
        records,
        nodes,
        messages,
        counters,
        null);
  }

  @Test
  void enrollIsIdempotentForTheSameKeyAndRefusesAnotherKey() throws Exception {
    DeviceRow first = enrolled("d1");
    DeviceRow again = enrolled("d1");
    assertEquals(first.id(), again.id());
    assertArrayEquals(first.publicKey(), again.publicKey());
    assertThrows(
        DeviceExistsException.class,
        () ->
            store.enroll(
                DeviceRow.enrolled("d1", bytes(8, 32), "other", bytes(0, 17), bytes(1, 32), 5)));
    assertEquals(1, store.devices().size());
  }

  static final java.time.Duration STUCK_AFTER = java.time.Duration.ofMinutes(10);
  static final long MIN = 60_000;

  /** No rate limit on STUCK alerts, for the tests of the episode rule. */
  static final java.time.Duration NO_ALERT_WINDOW = java.time.Duration.ZERO;

  /**
   * A signed report of {@code device}'s queue, numbered {@code at}: its oldest unsynced capture
   * {@code age} old at {@code at}.
   */
  static DeviceSyncState queue(String device, Long oldest, Long age, String outcome, long at) {
    return unsigned(device, oldest, age, outcome, at).signedAs(at);
  }

  /** {@link #queue} as an older agent reports it, without a signature. */
  static DeviceSyncState unsigned(String device, Long oldest, Long age, String outcome, long at) {
    return new DeviceSyncState(
        device, oldest, age, outcome == null ? null : 1000L, outcome, at, null, null);
  }

  /** The STUCK alert the tests' reports raise. */
  static AlertRow stuckAlert(DeviceSyncState r) {
    return new AlertRow(0, "ALERT", "WARN", r.deviceId(), null, "stuck " + r.queueAgeMs(), null, 9);
  }

  DeviceSyncStates.Recorded report(DeviceSyncStates states, DeviceSyncState s) {
    return report(states, s, NO_ALERT_WINDOW);
  }

  DeviceSyncStates.Recorded report(
      DeviceSyncStates states, DeviceSyncState s, java.time.Duration alertWindow) {
    return states.record(
        new DeviceSyncStates.Report(s, STUCK_AFTER, alertWindow, LedgerStoreContract::stuckAlert));
  }

  @Test
  void aSignedReportNumberedNoHigherThanTheLastStoredIsAReplayAndChangesNothing() {
    DeviceSyncStates states = new DeviceSyncStates(db);
    DeviceSyncState first = report(states, queue("d1", 100L, 5_000L, "ok", 2_000)).state();
    assertTrue(first.signed());
    assertEquals(2_000L, first.reportSeq());
    DeviceSyncStates.Recorded same = report(states, queue("d1", 1L, 99 * MIN, "bad-proof", 2_000));
    assertFalse(same.stored(), "the same number again: a replay");
    DeviceSyncStates.Recorded older = report(states, queue("d1", 1L, 99 * MIN, "bad-proof", 1_500));
    assertFalse(older.stored(), "an older number: a replay");
    assertEquals(first, states.get("d1").orElseThrow(), "nothing changed");
    DeviceSyncState unsigned = report(states, unsigned("d1", 7L, 1_000L, "ok", 2_500)).state();
    assertFalse(unsigned.signed());
    assertEquals(2_000L, unsigned.reportSeq(), "an unsigned report keeps the replay floor");
    assertFalse(report(states, queue("d1", 1L, 99 * MIN, "ok", 1_999)).stored());
    assertTrue(report(states, queue("d1", 1L, 1_000L, "ok", 2_001)).stored(), "a newer one");
  }

  @Test
  void anUnsignedReportIsStoredFlaggedAndNeverStuck() {
    DeviceSyncStates states = new DeviceSyncStates(db);
    for (int i = 0; i < 5; i++) {
      DeviceSyncStates.Recorded r =
          report(states, unsigned("d1", 1_000L, (20 + i) * MIN, "bad-proof", i * MIN));
      assertTrue(r.stored());
      assertTrue(r.newAlert().isEmpty(), "an unsigned report raises no alert");
      assertFalse(r.state().stuck());
      assertFalse(states.get("d1").orElseThrow().signed());
    }
    assertEquals(0, store.alertCount());
  }

  @Test
  void stuckAlertsOfOneDeviceAreRateLimitedToOnePerWindow() {
    DeviceSyncStates states = new DeviceSyncStates(db);
    java.time.Duration window = java.time.Duration.ofMinutes(60);
    long t = 100 * MIN;
    int alerts = 0;
    for (int episode = 0; episode < 4; episode++) {
      long start = t + episode * 10 * MIN;
      long head = 1_000L + episode;
      report(states, queue("d1", head, 11 * MIN, "ok", start), window);
      DeviceSyncStates.Recorded stuck =
          report(states, queue("d1", head, 12 * MIN, "ok", start + MIN), window);
      assertTrue(stuck.state().stuck(), "episode " + episode + " is shown stuck");
      alerts += stuck.newAlert().isPresent() ? 1 : 0;
      report(states, queue("d1", null, null, "ok", start + 2 * MIN), window);
    }
    assertEquals(1, alerts, "four episodes within 40 min: one alert");
    long later = t + 100 * MIN;
    report(states, queue("d1", 9L, 11 * MIN, "ok", later), window);
    assertTrue(
        report(states, queue("d1", 9L, 12 * MIN, "ok", later + MIN), window).newAlert().isPresent(),
        "a window after the last alert: the next episode alerts");
    assertEquals(2, store.alertCount());
    assertEquals(2L, store.counters().get(Counter.STUCK_EPISODES.key()));
  }

  @Test
  void queueStateIsStoredPerDeviceAndReplacedByEachReport() {
    DeviceSyncStates states = new DeviceSyncStates(db);
    assertTrue(states.get("d1").isEmpty(), "never reported: unknown");
    report(states, queue("d1", 100L, 5_000L, "transport-timeout", 1_000));
    report(states, queue("d2", null, null, null, 2_000));
    DeviceSyncState d1 = report(states, queue("d1", 200L, 6_000L, "ok", 3_000)).state();
    assertEquals(d1, states.get("d1").orElseThrow());
    assertEquals(200L, d1.oldestUnsyncedAt());
    assertEquals("ok", d1.lastOutcome());
    assertEquals(1000L, d1.lastAttemptAgeMs());
    assertEquals(3_000, d1.reportedAt());
    assertEquals(6_000L + 7_000, d1.queueAgeAt(10_000), "aged by the time since the report");
    assertEquals(2, states.all().size());
    assertEquals(null, states.all().get("d2").oldestUnsyncedAt(), "an empty queue");
    assertEquals(0, store.alertCount());
    DeviceSyncState sized =
        new DeviceSyncState("d1", 300L, 7_000L, 1000L, "ok", 4_000, null, 42L).signedAs(4_000);
    assertEquals(sized, report(states, sized).state());
    assertEquals(42L, states.get("d1").orElseThrow().reportedAtSize(), "the size it reported at");
    assertFalse(sized.deliveredBy(42), "record 42 is the oldest unsynced: not delivered yet");
    assertTrue(sized.deliveredBy(43), "the verified size passed it: delivered");
    assertFalse(d1.deliveredBy(Long.MAX_VALUE), "a report without its size: never assumed");
  }

  @Test
  void stuckIsRaisedOncePerEpisode() {
    DeviceSyncStates states = new DeviceSyncStates(db);
    long head = 1_000;
    long t = 100 * MIN;
    assertTrue(
        report(states, queue("d1", head, 11 * MIN, "bad-proof", t)).newAlert().isEmpty(),
        "one contact with an old queue is not yet a device that keeps contacting");
    DeviceSyncStates.Recorded raised =
        report(states, queue("d1", head, 12 * MIN, "bad-proof", t + MIN));
    AlertRow alert = raised.newAlert().orElseThrow();
    assertEquals("d1", alert.deviceId());
    assertEquals("stuck " + 12 * MIN, alert.message());
    assertEquals(t + MIN, raised.state().stuckSince());
    for (int i = 2; i < 5; i++) {
      assertTrue(
          report(states, queue("d1", head, (10 + i) * MIN, "bad-proof", t + i * MIN))
              .newAlert()
              .isEmpty(),
          "the episode is open: no second alert");
    }
    assertTrue(states.get("d1").orElseThrow().stuck());
    assertEquals(1, store.alertCount());

    DeviceSyncState drained = report(states, queue("d1", null, null, "ok", t + 6 * MIN)).state();
    assertFalse(drained.stuck(), "drained: the episode is over");
    report(states, queue("d1", 50_000L, 11 * MIN, "rate-limited", t + 20 * MIN));
    assertTrue(
        report(states, queue("d1", 50_000L, 12 * MIN, "rate-limited", t + 21 * MIN))
            .newAlert()
            .isPresent(),
        "stuck again: a new episode, a new alert");
    assertEquals(2, store.alertCount());
    assertEquals(2L, store.counters().get(Counter.STUCK_EPISODES.key()));
  }

  @Test
  void aDrainingBacklogIsNotStuck() {
    DeviceSyncStates states = new DeviceSyncStates(db);
    for (int i = 0; i < 5; i++) {
      assertTrue(
          report(states, queue("d1", 1_000L + i, 60 * MIN, "ok", i * MIN)).newAlert().isEmpty(),
          "days-old captures, but the queue moves with every batch");
    }
    report(states, queue("d1", 9_000L, 9 * MIN, "ok", 6 * MIN));
    assertTrue(
        report(states, queue("d1", 9_000L, 9 * MIN + 30_000, "ok", 7 * MIN)).newAlert().isEmpty(),
        "unmoved but younger than the threshold");
    assertEquals(0, store.alertCount());
    assertFalse(states.get("d1").orElseThrow().stuck());
  }

  @Test
  void unknownDeviceIsEmpty() {
    assertEquals(Optional.empty(), store.device("nobody"));
  }

  @Test
  void commitStoresEverythingAndBumpsTheVersion() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(
        commitOf(
            d,
            2,
            List.of(
                message("r", 1, "k1", "a", MessageStatus.CONFIRMED),
                message("r", 2, "k2", "b", MessageStatus.PENDING))));
    DeviceRow after = store.device("d1").orElseThrow();
    assertEquals(2, after.verifiedSize());
    assertEquals(d.version() + 1, after.version());
    assertEquals("receipt2", after.lastReceipt());
    assertEquals(new EdgeCounters(10, 3, 2, 1), after.edge());
    assertEquals(-5L, after.clockSkewMs());
    List<DeviceRecordRow> records = store.records("d1", 0, 10);
    assertEquals(2, records.size());
    assertArrayEquals(bytes(1, 40), records.get(1).canonical());
    assertArrayEquals(bytes(5, 32), store.nodeHash("d1", 0, 0).orElseThrow());
    assertTrue(store.nodeHash("d1", 0, 1).isEmpty());
    assertTrue(store.nodeHash("d1", 0, 2).isEmpty());
    assertEquals(2, store.maxSeq("r"));
    assertEquals(0, store.maxSeq("empty-room"));
    assertEquals(1L, store.counters().get(Counter.BATCHES.key()));
  }

  @Test
  void recordsAreReadBackAcrossBundleRowsAndBatches() throws Exception {
    DeviceRow d = enrolled("kiosk");
    List<DeviceRecordRow> all = new ArrayList<>();
    for (int size : new int[] {300, 1, 600}) {
      DeviceRow now = store.device("kiosk").orElseThrow();
      List<DeviceRecordRow> batch = RecordBundleTest.rows(now.verifiedSize(), size);
      all.addAll(batch);
      store.commit(
          new BatchCommit(
              now.version(),
              now.verifiedSize(),
              advanced(now, now.verifiedSize() + size),
              batch,
              List.of(),
              List.of(),
              Map.of(),
              null));
    }
    assertEquals(d.version() + 3, store.device("kiosk").orElseThrow().version());
    RecordBundleTest.assertSameRows(all, store.records("kiosk", 0, 901));
    long[][] ranges = {{255, 258}, {299, 302}, {300, 301}, {0, 1}, {555, 557}, {895, 905}};
    for (long[] r : ranges) {
      RecordBundleTest.assertSameRows(
          all.subList((int) r[0], (int) Math.min(r[1], 901)), store.records("kiosk", r[0], r[1]));
    }
    assertEquals(List.of(), store.records("kiosk", 901, 1_000));
    assertEquals(List.of(), store.records("kiosk", 10, 10));
    assertEquals(List.of(), store.records("nobody", 0, 10));
  }

  @Test
  void aRecordLargerThanABundleRowIsStoredInARowOfItsOwn() throws Exception {
    DeviceRow d = enrolled("kiosk");
    List<DeviceRecordRow> batch =
        List.of(
            RecordBundleTest.row(0, Outcome.CONFIRMED, 100),
            RecordBundleTest.row(1, Outcome.REJECTED, RecordBundle.CLOSE_AT_BYTES + 1),
            RecordBundleTest.row(2, Outcome.CONFIRMED, 100));
    store.commit(
        new BatchCommit(
            d.version(), 0, advanced(d, 3), batch, List.of(), List.of(), Map.of(), null));
    RecordBundleTest.assertSameRows(batch, store.records("kiosk", 0, 3));
    RecordBundleTest.assertSameRows(batch.subList(1, 2), store.records("kiosk", 1, 2));
  }

  @Test
  void nodeBlocksAreFoundByTheLeafThatCompletedTheNode() throws Exception {
    DeviceRow d = enrolled("d1");
    List<NodeRow> first =
        List.of(
            new NodeRow(0, 0, bytes(1, 32)),
            new NodeRow(0, 1, bytes(2, 32)),
            new NodeRow(1, 0, bytes(3, 32)));
    store.commit(
        new BatchCommit(
            d.version(), 0, advanced(d, 2), List.of(), first, List.of(), Map.of(), null));
    DeviceRow mid = store.device("d1").orElseThrow();
    List<NodeRow> second =
        List.of(
            new NodeRow(0, 2, bytes(4, 32)),
            new NodeRow(0, 3, bytes(5, 32)),
            new NodeRow(1, 1, bytes(6, 32)),
            new NodeRow(2, 0, bytes(7, 32)));
    store.commit(
        new BatchCommit(
            mid.version(), 2, advanced(mid, 4), List.of(), second, List.of(), Map.of(), null));
    assertArrayEquals(bytes(3, 32), store.nodeHash("d1", 1, 0).orElseThrow());
    assertArrayEquals(bytes(7, 32), store.nodeHash("d1", 2, 0).orElseThrow());
    assertArrayEquals(bytes(4, 32), store.nodeHash("d1", 0, 2).orElseThrow());
    assertEquals(2, store.nodeBlock("d1", 3).orElseThrow().firstLeaf());
    assertTrue(store.nodeBlock("d1", 4).isEmpty());
    assertTrue(store.nodeHash("d1", 2, 1).isEmpty());
  }

  /** {@code commit} carrying {@code s} as the device's queue report. */
  static BatchCommit withQueue(BatchCommit commit, DeviceSyncState s) {
    return new BatchCommit(
        commit.expectedVersion(),
        commit.expectedVerifiedSize(),
        commit.device(),
        commit.records(),
        commit.nodes(),
        commit.messages(),
        commit.counterDeltas(),
        new DeviceSyncStates.Report(
            s, STUCK_AFTER, NO_ALERT_WINDOW, LedgerStoreContract::stuckAlert));
  }

  @Test
  void aBatchStoresItsQueueReportInItsTransactionAndAStaleOneDoesNot() throws Exception {
    DeviceSyncStates states = new DeviceSyncStates(db);
    DeviceRow d = enrolled("d1");
    long old = STUCK_AFTER.toMillis() + 1;
    CommittedBatch first =
        store.commit(
            withQueue(
                commitOf(d, 1, List.of(message("r", 1, "k1", "a", MessageStatus.CONFIRMED))),
                queue("d1", 100L, old, "ok", 1_000)));
    assertEquals(Optional.empty(), first.queueAlert(), "a first report opens no episode");
    assertEquals(1_000, states.get("d1").orElseThrow().reportedAt());
    assertThrows(
        StaleDeviceException.class,
        () ->
            store.commit(
                withQueue(
                    commitOf(d, 2, List.of(message("r", 2, "k2", "b", MessageStatus.CONFIRMED))),
                    queue("d1", 100L, old, "ok", 2_000))));
    assertEquals(1_000, states.get("d1").orElseThrow().reportedAt(), "rolled back with its batch");
    DeviceRow now = store.device("d1").orElseThrow();
    CommittedBatch second =
        store.commit(
            withQueue(
                commitOf(now, 2, List.of(message("r", 2, "k2", "b", MessageStatus.CONFIRMED))),
                queue("d1", 100L, old, "ok", 3_000)));
    assertTrue(second.queueAlert().isPresent(), "the same old queue again: STUCK");
    assertEquals(3_000L, states.get("d1").orElseThrow().stuckSince());
    assertEquals(1, store.alertCount(), "the alert is stored with the batch");
    assertThrows(
        IllegalArgumentException.class,
        () -> withQueue(commitOf(now, 3, List.of()), queue("d2", 100L, old, "ok", 4_000)));
  }

  @Test
  void aTickCommitsEveryDevicesLogAndQueueReportInOneTransaction() throws Exception {
    DeviceSyncStates states = new DeviceSyncStates(db);
    long old = STUCK_AFTER.toMillis() + 1;
    DeviceRow d1 = enrolled("d1");
    store.commit(withQueue(commitOf(d1, 1, List.of()), queue("d1", 100L, old, "ok", 1_000)));
    DeviceRow a = store.device("d1").orElseThrow();
    DeviceRow b = enrolled("d2");
    DeviceRow c = enrolled("d3");
    CommittedTick tick =
        store.commitTick(
            List.of(
                withQueue(
                    commitOf(b, 2, List.of(message("r", 1, "k1", "a", MessageStatus.CONFIRMED))),
                    queue("d2", 7L, 1_000L, "ok", 2_000)),
                withQueue(
                    commitOf(a, 3, List.of(message("r", 2, "k2", "b", MessageStatus.CONFIRMED))),
                    queue("d1", 100L, old + 1, "ok", 2_000)),
                commitOf(c, 1, List.of(message("s", 1, "k3", "c", MessageStatus.CONFIRMED)))));
    assertTrue(tick.queueAlerts().get(1).isPresent(), "d1's unmoved old queue again: STUCK");
    assertEquals(Optional.empty(), tick.queueAlerts().get(0), "a first report opens no episode");
    assertEquals(Optional.empty(), tick.queueAlerts().get(2));
    assertEquals(a.version() + 1, store.device("d1").orElseThrow().version());
    assertEquals(3, store.device("d1").orElseThrow().verifiedSize());
    assertEquals(2, store.device("d2").orElseThrow().verifiedSize());
    assertEquals(1, store.device("d3").orElseThrow().verifiedSize());
    assertEquals(3, store.records("d1", 0, 10).size());
    assertEquals(2, store.records("d2", 0, 10).size());
    assertArrayEquals(bytes(5, 32), store.nodeHash("d1", 0, 1).orElseThrow());
    assertArrayEquals(bytes(5, 32), store.nodeHash("d3", 0, 0).orElseThrow());
    assertEquals(2_000, states.get("d1").orElseThrow().reportedAt());
    assertEquals(2_000L, states.get("d1").orElseThrow().stuckSince());
    assertEquals(7L, states.get("d2").orElseThrow().oldestUnsyncedAt());
    assertTrue(states.get("d3").isEmpty());
    assertEquals(2, store.maxSeq("r"));
    assertEquals(1, store.alertCount());
  }

  @Test
  void aTickCommitsSeveralBatchesOfOneDeviceInLogOrder() throws Exception {
    DeviceSyncStates states = new DeviceSyncStates(db);
    long old = STUCK_AFTER.toMillis() + 1;
    DeviceRow d1 = enrolled("d1");
    DeviceRow d2 = enrolled("d2");
    BatchCommit first =
        withQueue(
            commitOf(d1, 2, List.of(message("r", 1, "k1", "a", MessageStatus.CONFIRMED))),
            queue("d1", 100L, old, "ok", 1_000));
    BatchCommit second =
        withQueue(
            commitOf(
                first.device(), 3, List.of(message("r", 3, "k3", "c", MessageStatus.CONFIRMED))),
            queue("d1", 100L, old + 1, "ok", 2_000));
    BatchCommit other =
        commitOf(d2, 1, List.of(message("r", 2, "k2", "b", MessageStatus.CONFIRMED)));
    CommittedTick tick = store.commitTick(List.of(first, other, second));
    assertEquals(Optional.empty(), tick.queueAlerts().get(0), "a first report opens no episode");
    assertEquals(Optional.empty(), tick.queueAlerts().get(1));
    assertTrue(
        tick.queueAlerts().get(2).isPresent(),
        "judged against the state the first report left: the unmoved old queue again, STUCK");
    DeviceRow after = store.device("d1").orElseThrow();
    assertEquals(d1.version() + 2, after.version());
    assertEquals(3, after.verifiedSize());
    assertEquals("cp3", after.lastCheckpoint());
    assertEquals(3, store.records("d1", 0, 10).size());
    assertArrayEquals(bytes(5, 32), store.nodeHash("d1", 0, 0).orElseThrow(), "the first's");
    assertArrayEquals(bytes(5, 32), store.nodeHash("d1", 0, 2).orElseThrow(), "the second's");
    assertEquals(2_000, states.get("d1").orElseThrow().reportedAt());
    assertEquals(2_000L, states.get("d1").orElseThrow().stuckSince());
    assertEquals(1, store.alertCount());
    assertEquals(3, store.maxSeq("r"));
    List<Long> confirmed = tick.confirmed().get("r").stream().map(c -> c.message().seq()).toList();
    assertEquals(Set.of(1L, 2L, 3L), Set.copyOf(confirmed));
    assertTrue(confirmed.indexOf(1L) < confirmed.indexOf(3L), "d1's messages in its log order");
  }

  @Test
  void aTicksRowsTakeTheirRoomsCursorsInSeqOrderAsOneRunWhereverDevicesInterleave()
      throws Exception {
    DeviceRow d1 = enrolled("d1");
    DeviceRow d2 = enrolled("d2");
    BatchCommit first =
        commitOf(d1, 2, List.of(message("r", 1, "k1", "a", MessageStatus.CONFIRMED)));
    BatchCommit second =
        commitOf(first.device(), 3, List.of(message("r", 3, "k3", "c", MessageStatus.CONFIRMED)));
    BatchCommit other =
        commitOf(d2, 1, List.of(message("r", 2, "k2", "b", MessageStatus.CONFIRMED)));
    List<ConfirmedFeed.Confirmed> ticked =
        store.commitTick(List.of(first, other, second)).confirmed().get("r");
    assertEquals(List.of(1L, 2L, 3L), ticked.stream().map(c -> c.message().seq()).toList());
    assertEquals(
        List.of(1L, 2L, 3L), ticked.stream().map(ConfirmedFeed.Confirmed::cursor).toList());

    // a batch alone too: its rows given as 5, 4 take cursors 4, 5 in seq order
    List<ConfirmedFeed.Confirmed> alone =
        store
            .commit(
                commitOf(
                    other.device(),
                    2,
                    List.of(
                        message("r", 5, "k5", "e", MessageStatus.CONFIRMED),
                        message("r", 4, "k4", "d", MessageStatus.CONFIRMED))))
            .confirmed()
            .get("r");
    assertEquals(List.of(4L, 5L), alone.stream().map(c -> c.message().seq()).toList());
    List<ConfirmedFeed.Confirmed> both = new ArrayList<>(ticked);
    both.addAll(alone);
    assertEquals(both, new ConfirmedFeed(db).after("r", 0, 0, 10), "what a stream reads back");
    assertEquals(0, confirmationRuns(), "seqs 1..5 are one run, open in the room's cursor row");
  }

  private long confirmationRuns() throws Exception {
    try (Connection c = db.dataSource().getConnection();
        ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM confirmation_runs")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aTickRefusesABatchThatDoesNotContinueItsDevicesBatchBeforeIt() throws Exception {
    DeviceRow d1 = enrolled("d1");
    BatchCommit first = commitOf(d1, 2, List.of());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> store.commitTick(List.of(first, commitOf(d1, 3, List.of()))));
    assertTrue(e.getMessage().contains("starts at size 0"), e.getMessage());
    assertEquals(0, store.device("d1").orElseThrow().verifiedSize());
  }

  @Test
  void aTickWhoseFirstBatchOfADeviceIsStaleWritesNeitherOfItsBatches() throws Exception {
    DeviceRow d1 = enrolled("d1");
    BatchCommit first = commitOf(d1, 2, List.of());
    BatchCommit second = commitOf(first.device(), 3, List.of());
    store.commit(first);
    assertThrows(StaleDeviceException.class, () -> store.commitTick(List.of(first, second)));
    assertEquals(2, store.device("d1").orElseThrow().verifiedSize());
    assertEquals(d1.version() + 1, store.device("d1").orElseThrow().version());
  }

  @Test
  void aTickWritesTheColumnsABatchWritesOfEachDeviceRowAndKeepsTheOthersAsStored()
      throws Exception {
    DeviceRow d1 = enrolled("d1");
    DeviceRow d2 = enrolled("d2");
    store.recordSignatureFailure(
        "d1", new AlertRow(0, "ALERT", "WARN", "d1", null, "bad sig", null, 7));
    store.markSeen("d2", 50, 7);
    store.commitTick(List.of(commitOf(d1, 2, List.of()), commitOf(d2, 3, List.of())));
    DeviceRow a = store.device("d1").orElseThrow();
    DeviceRow b = store.device("d2").orElseThrow();
    assertEquals(2, a.verifiedSize());
    assertEquals(2, a.claimedSize());
    assertArrayEquals(bytes(3, 17), a.compactRange());
    assertArrayEquals(bytes(9, 32), a.rootHash());
    assertEquals("cp2", a.lastCheckpoint());
    assertEquals("receipt2", a.lastReceipt());
    assertEquals(1L, a.lastCheckpointAt());
    assertEquals(2L, a.lastReceiptAt());
    assertEquals(3L, a.lastSeenAt());
    assertEquals(-5L, a.clockSkewMs());
    assertEquals(new EdgeCounters(10, 3, 2, 1), a.edge());
    assertEquals(d1.version() + 1, a.version());
    assertEquals(1, a.signatureFailures(), "counted after the batch was verified: kept");
    assertArrayEquals(d1.publicKey(), a.publicKey());
    assertEquals(d1.verifierKey(), a.verifierKey());
    assertEquals(DeviceStatus.ACTIVE, a.status());
    assertEquals(d1.createdAt(), a.createdAt());
    assertEquals(3, b.verifiedSize());
    assertEquals(50, b.claimedSize(), "a larger claimed size is kept");
    assertEquals(d2.version() + 1, b.version());
  }

  @Test
  void aTickWithOneStaleDeviceWritesNothingOfAnyDevice() throws Exception {
    DeviceSyncStates states = new DeviceSyncStates(db);
    DeviceRow d1 = enrolled("d1");
    store.commit(commitOf(d1, 1, List.of()));
    DeviceRow d2 = enrolled("d2");
    StaleDeviceException stale =
        assertThrows(
            StaleDeviceException.class,
            () ->
                store.commitTick(
                    List.of(
                        withQueue(commitOf(d2, 1, List.of()), queue("d2", 1L, 1L, "ok", 1_000)),
                        commitOf(
                            d1, 2, List.of(message("r", 1, "k1", "a", MessageStatus.CONFIRMED))))));
    assertTrue(stale.getMessage().contains("d1"), stale.getMessage());
    assertEquals(0, store.device("d2").orElseThrow().verifiedSize());
    assertEquals(d2.version(), store.device("d2").orElseThrow().version());
    assertEquals(List.of(), store.records("d2", 0, 10));
    assertTrue(states.get("d2").isEmpty(), "the report rolled back with the tick");
    assertEquals(0, store.maxSeq("r"));
  }

  @Test
  void aReplayedSignedReportInATickChangesNothing() throws Exception {
    DeviceSyncStates states = new DeviceSyncStates(db);
    DeviceRow d = enrolled("d1");
    store.commit(withQueue(commitOf(d, 1, List.of()), queue("d1", 5L, 10L, "ok", 5_000)));
    DeviceRow now = store.device("d1").orElseThrow();
    DeviceRow other = enrolled("d2");
    CommittedTick tick =
        store.commitTick(
            List.of(
                withQueue(commitOf(now, 2, List.of()), queue("d1", 1L, 99 * MIN, "x", 4_000)),
                commitOf(other, 1, List.of())));
    assertEquals(Optional.empty(), tick.queueAlerts().get(0));
    assertEquals(5_000, states.get("d1").orElseThrow().reportedAt(), "the replay stored nothing");
    assertEquals(2, store.device("d1").orElseThrow().verifiedSize(), "its batch committed");
  }

  @Test
  void staleVersionWritesNothing() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(commitOf(d, 1, List.of(message("r", 1, "k1", "a", MessageStatus.CONFIRMED))));
    assertThrows(
        StaleDeviceException.class,
        () ->
            store.commit(
                commitOf(d, 1, List.of(message("r", 2, "k2", "b", MessageStatus.CONFIRMED)))));
    assertEquals(1, store.maxSeq("r"));
    assertEquals(1, store.records("d1", 0, 10).size());
    assertEquals(1L, store.counters().get(Counter.BATCHES.key()));
  }

  @Test
  void duplicateKeyRollsBackTheWholeBatch() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(commitOf(d, 1, List.of(message("r", 1, "same", "a", MessageStatus.CONFIRMED))));
    DeviceRow now = store.device("d1").orElseThrow();
    assertThrows(
        SlotTakenException.class,
        () ->
            store.commit(
                commitOf(now, 2, List.of(message("r", 2, "same", "a", MessageStatus.CONFIRMED)))));
    assertEquals(1, store.device("d1").orElseThrow().verifiedSize());
    assertEquals(1, store.maxSeq("r"));
  }

  @Test
  void aTakenNumberRollsBackTheWholeBatch() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(commitOf(d, 1, List.of(message("r", 1, "first", "a", MessageStatus.CONFIRMED))));
    DeviceRow now = store.device("d1").orElseThrow();
    assertThrows(
        SlotTakenException.class,
        () ->
            store.commit(
                commitOf(now, 2, List.of(message("r", 1, "other", "b", MessageStatus.CONFIRMED)))));
    assertEquals(1, store.device("d1").orElseThrow().verifiedSize());
    assertEquals(Optional.empty(), store.messageByKey("other"));
    assertEquals(java.util.Set.of(1L), store.takenSeqs("r", List.of(1L, 2L)));
  }

  @Test
  void duplicateRoomSeqRollsBack() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(commitOf(d, 1, List.of(message("r", 1, "k1", "a", MessageStatus.CONFIRMED))));
    DeviceRow now = store.device("d1").orElseThrow();
    assertThrows(
        SlotTakenException.class,
        () ->
            store.commit(
                commitOf(now, 2, List.of(message("r", 1, "k2", "b", MessageStatus.CONFIRMED)))));
    assertTrue(store.messageByKey("k2").isEmpty());
  }

  @Test
  void tombstonesAccountForNumbersAndAllowManyNullKeys() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(
        commitOf(
            d,
            1,
            List.of(
                message("r", 1, "k1", "a", MessageStatus.CONFIRMED),
                MessageRow.tombstone("r", 2, "duplicate-caught-by-sql"),
                MessageRow.tombstone("r", 3, "duplicate-caught-by-sql"),
                message("r", 4, "k4", "d", MessageStatus.CONFIRMED))));
    List<MessageRow> page = store.roomPage("r", 0, 10);
    assertEquals(List.of(1L, 2L, 3L, 4L), page.stream().map(MessageRow::seq).toList());
    assertEquals(MessageStatus.TOMBSTONE, page.get(1).status());
    assertEquals(null, page.get(1).idempotencyKey());
    assertEquals(
        List.of(1L, 4L), store.confirmedAfter("r", 0, 10).stream().map(MessageRow::seq).toList());
    assertEquals(List.of(4L), store.roomPage("r", 3, 10).stream().map(MessageRow::seq).toList());
    RoomStats stats = store.rooms().get(0);
    assertEquals(new RoomStats("r", 4, 2, 2, 0, 0, 2), stats);
  }

  @Test
  void cjkAndEmojiRoundTrip() throws Exception {
    DeviceRow d = enrolled("d1");
    String text = "弹幕测试 🎉🚀 こんにちは 한국어 ∑";
    store.commit(commitOf(d, 1, List.of(message("r", 1, "k1", text, MessageStatus.CONFIRMED))));
    assertEquals(text, store.message("r", 1).orElseThrow().text());
    assertEquals(text, store.messageByKey("k1").orElseThrow().text());
  }

  @Test
  void keysAreCaseSensitive() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(
        commitOf(
            d,
            1,
            List.of(
                message("r", 1, "d:u:1700000000000:abcdefabcdefabcd", "a", MessageStatus.CONFIRMED),
                message(
                    "r", 2, "d:u:1700000000000:ABCDEFABCDEFABCD", "a", MessageStatus.CONFIRMED))));
    assertEquals(
        2,
        store
            .messagesByKeys(
                List.of("d:u:1700000000000:abcdefabcdefabcd", "d:u:1700000000000:ABCDEFABCDEFABCD"))
            .size());
  }

  @Test
  void messagesByKeysFindsOnlyStoredKeysAcrossChunks() throws Exception {
    DeviceRow d = enrolled("d1");
    List<MessageRow> rows = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (int i = 1; i <= 600; i++) {
      rows.add(message("r", i, "key" + i, "t" + i, MessageStatus.CONFIRMED));
      keys.add("key" + i);
      keys.add("absent" + i);
    }
    store.commit(commitOf(d, 1, rows));
    Map<String, MessageRow> found = store.messagesByKeys(keys);
    assertEquals(600, found.size());
    assertEquals(17, found.get("key17").seq());
    assertFalse(found.containsKey("absent1"));
  }

  @Test
  void reviewDecisionsAreCompareAndSetAndLeaveTheQueue() throws Exception {
    DeviceRow d = enrolled("d1");
    MessageRow pending = message("r", 1, "k1", "a", MessageStatus.PENDING);
    store.commit(commitOf(d, 1, List.of(pending)));
    assertEquals(List.of(1L), store.pending(10).stream().map(MessageRow::seq).toList());
    ReviewStore reviews = new ReviewStore(db, CLOCK);
    MessageRow approved =
        reviews
            .decide(pending.messageId(), MessageStatus.CONFIRMED, 0, null, Map.of())
            .orElseThrow();
    assertEquals(MessageStatus.CONFIRMED, approved.status());
    assertEquals(1, approved.version());
    VersionConflictException e =
        assertThrows(
            VersionConflictException.class,
            () -> reviews.decide(pending.messageId(), MessageStatus.REJECTED, 0, "x", Map.of()));
    assertEquals(MessageStatus.CONFIRMED, e.current().status());
    assertEquals(
        Optional.empty(), reviews.decide(424242L, MessageStatus.REJECTED, 0, "x", Map.of()));
    assertEquals(List.of(), store.pending(10));
  }

  @Test
  void theReviewQueueListsHeldMessagesOldestFirstAndOnlyThem() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(
        commitOf(
            d,
            3,
            List.of(
                message("z", 1, "k1", "a", MessageStatus.PENDING),
                message("z", 2, "k2", "b", MessageStatus.CONFIRMED),
                message("y", 1, "k3", "c", MessageStatus.PENDING))));
    LedgerStore later = new LedgerStore(db, Clock.offset(CLOCK, Duration.ofSeconds(5)));
    later.commit(
        commitOf(
            store.device("d1").orElseThrow(),
            4,
            List.of(message("a", 1, "k4", "d", MessageStatus.PENDING))));
    assertEquals(
        List.of("y/1", "z/1", "a/1"),
        store.pending(10).stream().map(m -> m.room() + "/" + m.seq()).toList());
    assertEquals(
        List.of("y/1"), store.pending(1).stream().map(m -> m.room() + "/" + m.seq()).toList());

    // A batch that fails leaves nothing in the queue.
    DeviceRow now = store.device("d1").orElseThrow();
    assertThrows(
        SlotTakenException.class,
        () ->
            store.commit(
                commitOf(
                    now,
                    6,
                    List.of(
                        message("b", 1, "k5", "e", MessageStatus.PENDING),
                        message("a", 1, "k6", "f", MessageStatus.PENDING)))));
    assertEquals(3, store.pending(10).size());

    MessageRow held = store.messageByKey("k1").orElseThrow();
    new ReviewStore(db, CLOCK)
        .decide(held.messageId(), MessageStatus.REJECTED, held.version(), "spam", Map.of());
    assertEquals(
        List.of("y/1", "a/1"),
        store.pending(10).stream().map(m -> m.room() + "/" + m.seq()).toList());
  }

  @Test
  void quarantineAndSignatureFailuresAreRecordedWithAlerts() throws Exception {
    enrolled("d1");
    store.recordSignatureFailure(
        "d1", new AlertRow(0, "ALERT", "WARN", "d1", null, "bad sig", null, 7));
    AlertRow fork =
        store.quarantine(
            "d1",
            "FORK: x",
            Map.of(Counter.FORKS.key(), 1L),
            new AlertRow(0, "ALERT", "CRITICAL", "d1", null, "fork", "{\"a\":1}", 8));
    DeviceRow d = store.device("d1").orElseThrow();
    assertEquals(DeviceStatus.QUARANTINED, d.status());
    assertEquals("FORK: x", d.statusReason());
    assertEquals(1, d.signatureFailures());
    List<AlertRow> alerts = store.alerts(10);
    assertEquals(2, alerts.size());
    assertEquals(fork.id(), alerts.get(0).id());
    assertEquals("{\"a\":1}", alerts.get(0).dataJson());
    assertEquals(2, store.alertCount());
    assertEquals(1L, store.counters().get(Counter.FORKS.key()));
    assertEquals(1L, store.counters().get(Counter.SIGNATURE_FAILURES.key()));
  }

  @Test
  void markSeenOnlyRaisesTheClaimedSize() throws Exception {
    enrolled("d1");
    store.markSeen("d1", 10, 5);
    store.markSeen("d1", 4, 6);
    DeviceRow d = store.device("d1").orElseThrow();
    assertEquals(10, d.claimedSize());
    assertEquals(6L, d.lastSeenAt());
    assertEquals(0, d.verifiedSize());
  }

  @Test
  void countersAccumulate() {
    store.addCounters(Map.of("a", 2L, "b", 1L));
    store.addCounters(Map.of("a", 3L));
    assertEquals(Map.of("a", 5L, "b", 1L), store.counters());
  }

  @Test
  void concurrentCounterUpdatesOnAllShardsAddUp() throws Exception {
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      List<java.util.concurrent.Future<?>> work = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        work.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20; i++) {
                    store.addCounters(Map.of("hits", 1L, "misses", 2L));
                  }
                }));
      }
      for (java.util.concurrent.Future<?> f : work) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(Map.of("hits", 160L, "misses", 320L), store.counters());
  }

  static final long T = 30_000;

  int sealAll(long now) {
    return store.gaps().seal(store.gaps().roomsAboveWatermark(), now, T);
  }

  @Test
  void theSealerTombstonesHolesOlderThanTAndLeavesYoungerOnesOpen() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(
        commitOf(
            d,
            1,
            List.of(
                message("gappy", 3, "k3", "c", MessageStatus.CONFIRMED),
                message("gappy", 4, "k4", "d", MessageStatus.CONFIRMED),
                message("gappy", 7, "k7", "g", MessageStatus.PENDING),
                message("whole", 1, "w1", "a", MessageStatus.CONFIRMED))));
    long stored = CLOCK.millis();

    assertEquals(0, sealAll(stored + T - 1));
    assertEquals(3, store.roomPage("gappy", 0, 100).size());

    assertEquals(4, sealAll(stored + T));
    List<MessageRow> page = store.roomPage("gappy", 0, 100);
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), page.stream().map(MessageRow::seq).toList());
    assertEquals(
        List.of(1L, 2L, 5L, 6L),
        page.stream()
            .filter(m -> m.status() == MessageStatus.TOMBSTONE)
            .map(MessageRow::seq)
            .toList());
    assertEquals(GapStore.SEALED_REASON, page.get(0).reason());
    assertEquals(0, sealAll(stored + 10 * T));
    assertTrue(store.gaps().roomsAboveWatermark().isEmpty(), "watermarks reached the top");
    assertEquals(4L, store.counters().get(Counter.TOMBSTONES.key()));
    assertEquals(4L, store.counters().get(Counter.SEALED_GAPS.key()));
  }

  @Test
  void aScheduledSealerRunLooksAtTheRoomsNumberedSinceTheLastRunAndAtEveryRoomNowAndThen()
      throws Exception {
    GapSealer sealer =
        new GapSealer(store, Duration.ofMillis(T), Clock.offset(CLOCK, Duration.ofMillis(T)));
    assertEquals(0, sealer.runScheduled(), "the first run looks at every room: none yet");
    DeviceRow d = enrolled("d1");
    store.commit(
        commitOf(
            d,
            1,
            List.of(
                message("noted", 3, "k3", "c", MessageStatus.CONFIRMED),
                message("quiet", 2, "q2", "b", MessageStatus.CONFIRMED))));
    sealer.admitted(Set.of("noted"));
    assertEquals(2, sealer.runScheduled(), "the noted room's holes");
    for (int run = 2; run < GapSealer.SWEEP_EVERY_RUNS; run++) {
      assertEquals(0, sealer.runScheduled(), "run " + run + " looks at no room");
    }
    assertEquals(1, store.roomPage("quiet", 0, 100).size(), "not looked at yet");
    assertEquals(1, sealer.runScheduled(), "every room again: the quiet room's hole");
    assertEquals(2, store.roomPage("quiet", 0, 100).size());
  }

  @Test
  void roomsAboveTheirWatermarkAreFoundAmongNamedRoomsOnly() throws Exception {
    DeviceRow d = enrolled("d1");
    List<MessageRow> rows = new ArrayList<>();
    for (int i = 0; i < 1_100; i++) {
      rows.add(message("r" + i, 2, "key" + i, "t", MessageStatus.CONFIRMED));
    }
    store.commit(commitOf(d, 1, rows));
    Set<String> named = new HashSet<>();
    for (int i = 0; i < 1_100; i += 2) {
      named.add("r" + i);
    }
    named.add("never-used");
    List<GapStore.RoomMark> marks = store.gaps().roomsAboveWatermark(named);
    assertEquals(550, marks.size(), "every named room in use, across several IN lists");
    for (GapStore.RoomMark m : marks) {
      assertTrue(named.contains(m.room()), m.room());
      assertEquals(2, m.highWater());
      assertEquals(0, m.sealedThrough());
    }
    assertEquals(List.of(), store.gaps().roomsAboveWatermark(Set.of("never-used")));
  }

  @Test
  void highWaterMarksOfManyRoomsAreReadAcrossSeveralQueries() throws Exception {
    DeviceRow d = enrolled("d1");
    List<MessageRow> rows = new ArrayList<>();
    Set<String> rooms = new HashSet<>();
    for (int i = 0; i < 501; i++) {
      rows.add(message("hw" + i, i % 7 + 1, "hw-key" + i, "t", MessageStatus.CONFIRMED));
      rooms.add("hw" + i);
    }
    store.commit(commitOf(d, 1, rows));
    rooms.add("hw-never-used");

    Map<String, Long> marks = store.maxSeqs(rooms);

    assertEquals(502, marks.size(), "every room asked for, the unused one too");
    for (int i = 0; i < 501; i++) {
      assertEquals(i % 7 + 1, marks.get("hw" + i), "hw" + i);
      assertEquals(store.maxSeq("hw" + i), marks.get("hw" + i), "as one room's query gives it");
    }
    assertEquals(0L, marks.get("hw-never-used"));
  }

  @Test
  void aSealerRunOverMoreRoomsThanOneTransactionCarriesSealsEveryRoom() throws Exception {
    DeviceRow d = enrolled("d1");
    List<MessageRow> rows = new ArrayList<>();
    int rooms = GapStore.ROOMS_PER_TRANSACTION + 1;
    for (int i = 0; i < rooms; i++) {
      rows.add(message("r" + i, 2, "key" + i, "t", MessageStatus.CONFIRMED));
    }
    store.commit(commitOf(d, 1, rows));

    assertEquals(rooms, sealAll(CLOCK.millis() + T));

    assertTrue(store.gaps().roomsAboveWatermark().isEmpty(), "every watermark at the top");
    assertEquals(MessageStatus.TOMBSTONE, store.message("r0", 1).orElseThrow().status());
    assertEquals(
        MessageStatus.TOMBSTONE, store.message("r" + (rooms - 1), 1).orElseThrow().status());
    assertEquals((long) rooms, store.counters().get(Counter.SEALED_GAPS.key()));
  }

  @Test
  void holesOfSeveralRoomsBeyondOneTransactionsTombstonesAreSealedInSeveral() throws Exception {
    DeviceRow d = enrolled("d1");
    long hole = GapStore.MAX_TOMBSTONES / 2 + 1;
    store.commit(
        commitOf(
            d,
            1,
            List.of(
                message("wide-a", hole + 1, "ka", "a", MessageStatus.CONFIRMED),
                message("wide-b", hole + 1, "kb", "b", MessageStatus.CONFIRMED))));

    assertEquals(2 * hole, sealAll(CLOCK.millis() + T));

    assertTrue(store.gaps().roomsAboveWatermark().isEmpty(), "both rooms complete");
    assertEquals(hole + 1, store.roomPage("wide-b", hole - 1, 10).get(1).seq());
  }

  @Test
  void aHoleWiderThanOneScanRightAboveTheWatermarkIsSealedFromTheSlotBeyondIt() throws Exception {
    DeviceRow d = enrolled("d1");
    long far = GapStore.SCAN_LIMIT + 5;
    store.commit(
        commitOf(
            d,
            1,
            List.of(
                message("far", far, "kf", "f", MessageStatus.CONFIRMED),
                message("near", 3, "kn", "n", MessageStatus.CONFIRMED))));

    assertEquals(
        GapStore.MAX_TOMBSTONES + 2,
        sealAll(CLOCK.millis() + T),
        "the near room's two holes and as many of the far room's as one run writes");
    int later = 0;
    for (int run = 0; run < 3; run++) {
      later += sealAll(CLOCK.millis() + T);
    }

    assertEquals(far - 1 - GapStore.MAX_TOMBSTONES, later, "the rest in the runs after");
    assertTrue(store.gaps().roomsAboveWatermark().isEmpty(), "both rooms complete");
    List<MessageRow> top = store.roomPage("far", far - 3, 10);
    assertEquals(List.of(far - 2, far - 1, far), top.stream().map(MessageRow::seq).toList());
    assertEquals(MessageStatus.TOMBSTONE, top.get(1).status());
    assertEquals(MessageStatus.CONFIRMED, top.get(2).status());
    assertEquals(MessageStatus.TOMBSTONE, store.message("near", 2).orElseThrow().status());
  }

  @Test
  void aBatchCommittingANumberBeforeTheSealerKeepsItAndOneAfterCollides() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(commitOf(d, 1, List.of(message("late", 3, "k3", "c", MessageStatus.CONFIRMED))));
    DeviceRow now = store.device("d1").orElseThrow();
    store.commit(commitOf(now, 2, List.of(message("late", 2, "k2", "b", MessageStatus.CONFIRMED))));

    assertEquals(1, sealAll(CLOCK.millis() + T));

    DeviceRow after = store.device("d1").orElseThrow();
    assertThrows(
        SlotTakenException.class,
        () ->
            store.commit(
                commitOf(
                    after, 3, List.of(message("late", 1, "k1", "a", MessageStatus.CONFIRMED)))));
    assertEquals(MessageStatus.CONFIRMED, store.message("late", 2).orElseThrow().status());
    assertEquals(MessageStatus.TOMBSTONE, store.message("late", 1).orElseThrow().status());
  }

  @Test
  void twoSealersOfOneRoomWriteEachTombstoneOnce() throws Exception {
    DeviceRow d = enrolled("d1");
    store.commit(commitOf(d, 1, List.of(message("twice", 5, "k5", "e", MessageStatus.CONFIRMED))));
    GapStore.RoomMark seen = store.gaps().roomsAboveWatermark().get(0);

    int first = store.gaps().seal(List.of(seen), CLOCK.millis() + T, T);
    int second = store.gaps().seal(List.of(seen), CLOCK.millis() + T, T);

    assertEquals(4, first);
    assertEquals(0, second);
    assertEquals(5, store.roomPage("twice", 0, 100).size());
  }
}
