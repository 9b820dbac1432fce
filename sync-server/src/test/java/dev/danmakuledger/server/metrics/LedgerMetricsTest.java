package dev.danmakuledger.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.server.ingest.PipelineStage;
import dev.danmakuledger.server.storage.Counter;
import dev.danmakuledger.server.storage.RoomStats;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LedgerMetricsTest {
  final AtomicReference<LedgerSnapshot> source = new AtomicReference<>(LedgerSnapshot.EMPTY);
  final LedgerMetrics metrics =
      new LedgerMetrics(
          new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
          () -> {
            LedgerSnapshot s = source.get();
            if (s == null) {
              throw new IllegalStateException("sql down");
            }
            return s;
          });

  static RoomStats room(String name, long high) {
    return new RoomStats(name, high, 0, high, 0, 0, 0);
  }

  @Test
  void latenciesAreHistogramsWithBucketsPerStage() {
    metrics.start(PipelineStage.ADMIT).end();
    metrics.start(PipelineStage.COMMIT).end();
    metrics.batchTimer().record(java.time.Duration.ofMillis(30));
    String text = metrics.scrape();
    assertTrue(text.contains("# TYPE danmaku_batch_seconds histogram"), text);
    assertTrue(text.contains("danmaku_batch_seconds_bucket{le=\"0.05\"} 1"), text);
    assertTrue(text.contains("danmaku_batch_seconds_bucket{le=\"0.025\"} 0"), text);
    assertTrue(text.contains("danmaku_stage_seconds_bucket{stage=\"admit\",le=\"+Inf\"} 1"), text);
    assertTrue(text.contains("danmaku_stage_seconds_count{stage=\"commit\"} 1"), text);
    assertTrue(text.contains("danmaku_stage_seconds_count{stage=\"verify\"} 0"), text);
    assertFalse(text.contains("quantile="), "no summaries: " + text);
  }

  @Test
  void ledgerCountersComeFromTheSnapshotReadAtScrape() {
    source.set(
        new LedgerSnapshot(
            Map.of(
                Counter.DUPLICATES_REDIS.key(), 7L,
                Counter.DUPLICATES_SQL.key(), 2L,
                Counter.CONFLICTS.key(), 3L,
                Counter.FORKS.key(), 1L,
                Counter.SIGNATURE_FAILURES.key(), 4L,
                Counter.TOMBSTONES.key(), 9L,
                Counter.SEALED_GAPS.key(), 5L,
                Counter.STUCK_EPISODES.key(), 6L),
            11,
            List.of(room("busy", 42))));
    String text = metrics.scrape();
    assertTrue(text.contains("danmaku_ledger_duplicates_total{layer=\"edge\"} 11.0"), text);
    assertTrue(text.contains("danmaku_ledger_duplicates_total{layer=\"redis\"} 7.0"), text);
    assertTrue(text.contains("danmaku_ledger_duplicates_total{layer=\"sql\"} 2.0"), text);
    assertTrue(text.contains("danmaku_ledger_conflicts_total 3.0"), text);
    assertTrue(text.contains("danmaku_ledger_forks_total 1.0"), text);
    assertTrue(text.contains("danmaku_ledger_bad_signatures_total 4.0"), text);
    assertTrue(text.contains("danmaku_ledger_tombstones_total 9.0"), text);
    assertTrue(text.contains("danmaku_ledger_sealed_gaps_total 5.0"), text);
    assertTrue(text.contains("danmaku_ledger_stuck_episodes_total 6.0"), text);
    assertTrue(text.contains("danmaku_room_high_water{room=\"busy\"} 42.0"), text);
  }

  @Test
  void aFailedReadKeepsThePreviousValuesAndIsCounted() {
    source.set(new LedgerSnapshot(Map.of(Counter.FORKS.key(), 2L), 0, List.of()));
    metrics.scrape();
    source.set(null);
    String text = metrics.scrape();
    assertTrue(text.contains("danmaku_ledger_forks_total 2.0"), text);
    assertTrue(text.contains("danmaku_metrics_refresh_failures_total 1.0"), text);
  }

  @Test
  void roomsThatLeaveTheTopAreDropped() {
    source.set(new LedgerSnapshot(Map.of(), 0, List.of(room("old", 5))));
    assertTrue(metrics.scrape().contains("room=\"old\""));
    source.set(new LedgerSnapshot(Map.of(), 0, List.of(room("new", 9))));
    String text = metrics.scrape();
    assertFalse(text.contains("room=\"old\""), text);
    assertTrue(text.contains("room=\"new\""), text);
  }

  @Test
  void concurrentScrapesNeverSeeARoomTwice() throws Exception {
    List<RoomStats> rooms = new ArrayList<>();
    for (int r = 0; r < 20; r++) {
      rooms.add(room("room-" + r, r + 1));
    }
    source.set(new LedgerSnapshot(Map.of(), 0, rooms));
    // each scrape shows the rooms again while the other one reads them
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> scrapers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        scrapers.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 1_500; i++) {
                    metrics.scrape();
                  }
                }));
      }
      for (Future<?> f : scrapers) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    String text = metrics.scrape();
    assertTrue(text.contains("danmaku_room_high_water{room=\"room-7\"} 8.0"), text);
  }

  @Test
  void theSnapshotBoundsRoomCardinality() {
    List<RoomStats> many = new ArrayList<>();
    for (int i = 0; i <= LedgerMetrics.TOP_ROOMS; i++) {
      many.add(room("r" + i, i));
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new LedgerSnapshot(Map.of(), 0, many));
    assertEquals("busiestRooms: got 21, want <= 20", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new LedgerSnapshot(Map.of(), -1, List.of()));
  }
}
