package dev.danmakuledger.server.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.admin.ClusterHistory;
import dev.danmakuledger.server.storage.ClusterMinute;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.HistoryStore;
import dev.danmakuledger.server.storage.MinuteCounts;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-minute history of one instance (docs/sync-server.md, "History"): what the sampler writes
 * for the running minute, across minute boundaries, through an SQL failure and past the retention,
 * and what {@link InstanceHistory} reads back for the cluster.
 */
final class HistorySamplerTest {
  static final Instant T0 = Instant.parse("2026-01-02T03:04:00Z");

  @TempDir Path dir;
  Database db;
  HistoryStore store;
  MutableClock clock;
  final AtomicReference<MinuteCounts> totals = new AtomicReference<>(MinuteCounts.ZERO);
  final AtomicLong subscribers = new AtomicLong();

  @BeforeEach
  void open() {
    db = Database.open(Database.h2Url(dir), null, null);
    store = new HistoryStore(db);
    clock = new MutableClock(T0.plusSeconds(5));
  }

  @AfterEach
  void close() {
    db.close();
  }

  HistorySampler sampler(String id) {
    return new HistorySampler(
        store, id, totals::get, subscribers::get, Duration.ofHours(24), clock);
  }

  static MinuteCounts batches(long batches, long records) {
    return new MinuteCounts(batches, records, records, 0, 0, 0, 0, 0, 10 * batches, 20 * batches);
  }

  List<ClusterMinute> stored() {
    return store.cluster(0, Long.MAX_VALUE);
  }

  @Test
  void theRunningMinuteIsRewrittenAsItGrowsAndANewMinuteStartsFromZero() {
    HistorySampler s = sampler("i-a");
    totals.set(batches(2, 20));
    subscribers.set(3);
    assertTrue(s.sample());
    clock.advance(Duration.ofSeconds(10));
    totals.set(batches(5, 50));
    subscribers.set(1);
    assertTrue(s.sample());
    assertEquals(
        List.of(
            new ClusterMinute(
                T0.toEpochMilli(), 1, new MinuteCounts(5, 50, 50, 0, 0, 0, 0, 3, 50, 100))),
        stored());

    clock.advance(Duration.ofMinutes(1));
    totals.set(batches(6, 51));
    assertTrue(s.sample());
    List<ClusterMinute> rows = stored();
    assertEquals(2, rows.size());
    assertEquals(T0.plusSeconds(60).toEpochMilli(), rows.get(1).minuteStartMs());
    assertEquals(new MinuteCounts(1, 1, 1, 0, 0, 0, 0, 1, 10, 20), rows.get(1).counts());
  }

  @Test
  void whatAFailedWriteWouldHaveCountedIsCountedOnceByTheNextWriteThatSucceeds() throws Exception {
    HistorySampler s = sampler("i-a");
    totals.set(batches(2, 20));
    assertTrue(s.sample());
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("ALTER TABLE instance_minutes RENAME TO instance_minutes_away");
    }
    clock.advance(Duration.ofSeconds(30));
    totals.set(batches(4, 40));
    assertFalse(s.sample(), "SQL refused the write");
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("ALTER TABLE instance_minutes_away RENAME TO instance_minutes");
    }
    clock.advance(Duration.ofSeconds(40)); // into the next minute
    totals.set(batches(5, 50));
    assertTrue(s.sample());
    List<ClusterMinute> rows = stored();
    assertEquals(batches(2, 20), rows.get(0).counts());
    assertEquals(batches(3, 30), rows.get(1).counts());
    assertEquals(
        5, rows.stream().mapToLong(r -> r.counts().batches()).sum(), "every batch counted once");
  }

  @Test
  void samplesOlderThanTheRetentionArePruned() {
    store.write(T0.minus(Duration.ofHours(25)).toEpochMilli(), "i-old", batches(9, 9));
    store.write(T0.minus(Duration.ofHours(23)).toEpochMilli(), "i-old", batches(1, 1));
    assertTrue(sampler("i-a").sample());
    assertEquals(
        List.of(T0.minus(Duration.ofHours(23)).toEpochMilli(), T0.toEpochMilli()),
        stored().stream().map(ClusterMinute::minuteStartMs).toList());
  }

  @Test
  void closingWritesTheLastSample() {
    HistorySampler s = sampler("i-a");
    totals.set(batches(7, 70));
    s.close();
    assertEquals(7, stored().get(0).counts().batches());
  }

  @Test
  void aRetentionUnderAnHourIsRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new HistorySampler(
                store, "i-a", totals::get, subscribers::get, Duration.ofMinutes(59), clock));
  }

  @Test
  void theClusterHistoryHasEveryMinuteOfTheWindowSummedOverInstances() {
    HistorySampler a = sampler("i-a");
    HistorySampler b = sampler("i-b");
    totals.set(batches(2, 20));
    a.sample();
    totals.set(batches(3, 30));
    b.sample();
    clock.advance(Duration.ofMinutes(2));
    ClusterHistory h = new InstanceHistory(store, clock).last(4);
    assertEquals(4, h.points().size());
    ClusterHistory.Minute m = h.points().get(1);
    assertEquals(T0.toString(), m.minute());
    assertEquals(2, m.instances());
    assertEquals(5, m.batches());
    assertEquals(50, m.records());
    assertEquals(0.01, m.admitMsPerBatch(), 1e-9);
    assertEquals(0.02, m.commitMsPerBatch(), 1e-9);
    for (int i : new int[] {0, 2, 3}) {
      assertEquals(0, h.points().get(i).instances(), "minute " + i + " had no sample");
      assertEquals(0, h.points().get(i).batches());
    }
    assertEquals(T0.plusSeconds(120).toString(), h.points().get(3).minute());
    assertThrows(IllegalArgumentException.class, () -> new InstanceHistory(store, clock).last(0));
    assertThrows(
        IllegalArgumentException.class, () -> new InstanceHistory(store, clock).last(1441));
  }
}
