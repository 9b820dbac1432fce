package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The history storage contract (docs/sync-server.md, "History"), run against every backend: samples
 * keyed by (minute, instance) that only grow when rewritten, summed per minute over instances.
 */
abstract class HistoryStoreContract {
  static final long T0 = 1_767_323_040_000L; // 2026-01-02T03:04:00Z, a minute boundary

  Database db;
  HistoryStore history;

  abstract Database openDatabase() throws Exception;

  abstract void dropDatabase() throws Exception;

  @BeforeEach
  void open() throws Exception {
    db = openDatabase();
    history = new HistoryStore(db);
  }

  @AfterEach
  void close() throws Exception {
    db.close();
    dropDatabase();
  }

  static MinuteCounts counts(long n) {
    return new MinuteCounts(n, 10 * n, 7 * n, n, n, 0, n, 3, 1000 * n, 2000 * n);
  }

  static long minute(int i) {
    return T0 + i * HistoryStore.MINUTE_MS;
  }

  @Test
  void aSampleReadsBackAsTheClusterMinuteOfOneInstance() {
    history.write(minute(0), "i-a", counts(4));
    assertEquals(
        List.of(new ClusterMinute(minute(0), 1, counts(4))), history.cluster(minute(0), minute(1)));
  }

  @Test
  void samplesOfTwoInstancesInOneMinuteAreSummed() {
    history.write(minute(0), "i-a", counts(4));
    history.write(minute(0), "i-b", new MinuteCounts(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    assertEquals(
        List.of(
            new ClusterMinute(
                minute(0), 2, new MinuteCounts(5, 42, 31, 8, 9, 6, 11, 11, 4009, 8010))),
        history.cluster(minute(0), minute(1)));
  }

  @Test
  void rewritingAMinuteKeepsTheLargerValueAndNeverCountsTwice() {
    history.write(minute(0), "i-a", counts(2));
    history.write(minute(0), "i-a", counts(2));
    assertEquals(counts(2), history.cluster(minute(0), minute(1)).get(0).counts());
    history.write(minute(0), "i-a", counts(5));
    assertEquals(counts(5), history.cluster(minute(0), minute(1)).get(0).counts());
    history.write(minute(0), "i-a", counts(1)); // a late write of an earlier sample
    assertEquals(
        List.of(new ClusterMinute(minute(0), 1, counts(5))), history.cluster(minute(0), minute(1)));
  }

  @Test
  void theWindowIncludesItsStartAndExcludesItsEndOldestFirst() {
    for (int i = 0; i < 4; i++) {
      history.write(minute(i), "i-a", counts(i + 1));
    }
    assertEquals(
        List.of(
            new ClusterMinute(minute(1), 1, counts(2)), new ClusterMinute(minute(2), 1, counts(3))),
        history.cluster(minute(1), minute(3)));
    assertEquals(List.of(), history.cluster(minute(4), minute(10)));
  }

  @Test
  void pruneDeletesOnlyMinutesBeforeTheCut() {
    for (int i = 0; i < 3; i++) {
      history.write(minute(i), "i-a", counts(1));
      history.write(minute(i), "i-b", counts(1));
    }
    assertEquals(2, history.prune(minute(1)));
    assertEquals(
        List.of(minute(1), minute(2)),
        history.cluster(minute(0), minute(3)).stream().map(ClusterMinute::minuteStartMs).toList());
    assertEquals(0, history.prune(minute(1)));
  }

  @Test
  void aMinuteOffTheBoundaryOrAnOversizedInstanceIdIsRefusedBeforeSql() {
    assertThrows(
        IllegalArgumentException.class, () -> history.write(minute(0) + 1, "i-a", counts(1)));
    assertThrows(
        IllegalArgumentException.class,
        () -> history.write(minute(0), "i".repeat(HistoryStore.MAX_INSTANCE_CHARS + 1), counts(1)));
    assertThrows(IllegalArgumentException.class, () -> history.write(minute(0), "", counts(1)));
    assertEquals(List.of(), history.cluster(minute(0), minute(1)));
  }

  @Test
  void minuteOfRoundsDownIncludingBeforeTheEpoch() {
    assertEquals(minute(0), HistoryStore.minuteOf(minute(0) + 59_999));
    assertEquals(minute(0), HistoryStore.minuteOf(minute(0)));
    assertEquals(-HistoryStore.MINUTE_MS, HistoryStore.minuteOf(-1));
  }
}
