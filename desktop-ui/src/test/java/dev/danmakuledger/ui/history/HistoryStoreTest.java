package dev.danmakuledger.ui.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.admin.DuplicateLayers;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryStoreTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");

  @Test
  void samplesAndSnapshotsSurviveReopening(@TempDir Path dir) {
    try (HistoryStore h = HistoryStore.open(dir, Json.mapper())) {
      h.record(new OverviewSample(T0, 2.5, 100, 7, 1));
      h.record(new OverviewSample(T0.plusSeconds(2), 3.0, 120, 9, 1));
      h.save("layers", T0, new DuplicateLayers(1, 2, 3));
    }
    try (HistoryStore h = HistoryStore.open(dir, Json.mapper())) {
      assertEquals(
          List.of(
              new OverviewSample(T0, 2.5, 100, 7, 1),
              new OverviewSample(T0.plusSeconds(2), 3.0, 120, 9, 1)),
          h.samplesSince(T0.minusSeconds(60)));
      Stamped<DuplicateLayers> s = h.load("layers", DuplicateLayers.class).orElseThrow();
      assertEquals(T0, s.at());
      assertEquals(new DuplicateLayers(1, 2, 3), s.value());
    }
  }

  @Test
  void sinceAndPruneCutByTime() {
    try (HistoryStore h = HistoryStore.inMemory(Json.mapper())) {
      for (int i = 0; i < 5; i++) {
        h.record(new OverviewSample(T0.plusSeconds(i), i, i, 0, 0));
      }
      assertEquals(2, h.samplesSince(T0.plusSeconds(3)).size());
      assertEquals(3, h.prune(T0.plusSeconds(3)));
      assertEquals(T0.plusSeconds(3), h.samplesSince(T0).get(0).at());
    }
  }

  @Test
  void snapshotOfAnotherShapeReadsAsAbsent() {
    try (HistoryStore h = HistoryStore.inMemory(Json.mapper())) {
      h.save("layers", T0, List.of("not", "layers"));
      assertTrue(h.load("layers", DuplicateLayers.class).isEmpty());
      assertTrue(h.load("never-saved", DuplicateLayers.class).isEmpty());
    }
  }

  @Test
  void negativeCountersAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new OverviewSample(T0, -1, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new OverviewSample(T0, 1, 0, -1, 0));
    assertThrows(IllegalArgumentException.class, () -> new OverviewSample(T0, Double.NaN, 0, 0, 0));
  }
}
