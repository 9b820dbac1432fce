package dev.danmakuledger.ui.overview;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.ui.history.OverviewSample;
import dev.danmakuledger.ui.testing.Harness;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SeriesTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");

  @Test
  void sampleCountsEdgeDuplicatesAsSubmissions() throws Exception {
    Overview o = Json.mapper().readValue(Harness.read("overview.json"), Overview.class);
    OverviewSample s = Series.sample(T0, o);
    assertEquals(1259 + 2 + 181 + 10 + 6 + 95, s.outcomes());
    assertEquals(95 + 177 + 4, s.duplicates());
    assertEquals(3.25, s.recordsPerSecond());
  }

  @Test
  void duplicateRateIsTheShareOfNewSubmissions() {
    List<OverviewSample> samples =
        List.of(
            new OverviewSample(T0, 1, 100, 10, 0),
            new OverviewSample(T0.plusSeconds(2), 1, 200, 35, 0),
            new OverviewSample(T0.plusSeconds(4), 1, 200, 35, 0),
            new OverviewSample(T0.plusSeconds(6), 1, 50, 1, 0),
            new OverviewSample(T0.plusSeconds(8), 1, 60, 6, 0));
    assertEquals(
        List.of(
            new ChartPoint(T0.plusSeconds(2), 25.0),
            new ChartPoint(T0.plusSeconds(4), 25.0),
            new ChartPoint(T0.plusSeconds(8), 50.0)),
        Series.duplicateRate(samples));
  }

  @Test
  void duplicateRateLooksBackAtLeastTenSeconds() {
    List<OverviewSample> samples =
        List.of(
            new OverviewSample(T0, 1, 0, 0, 0),
            new OverviewSample(T0.plusSeconds(4), 1, 100, 50, 0),
            new OverviewSample(T0.plusSeconds(12), 1, 200, 50, 0),
            new OverviewSample(T0.plusSeconds(16), 1, 300, 50, 0));
    assertEquals(
        List.of(
            new ChartPoint(T0.plusSeconds(4), 50.0),
            new ChartPoint(T0.plusSeconds(12), 25.0),
            new ChartPoint(T0.plusSeconds(16), 0.0)),
        Series.duplicateRate(samples));
  }

  @Test
  void tickUnitsAreWholeAndGrowWithTheSpan() {
    assertEquals(10, OverviewView.tickUnit(1));
    assertEquals(60, OverviewView.tickUnit(45));
    assertEquals(3600, OverviewView.tickUnit(1e9));
  }

  @Test
  void countAxesTickInWholeNumbersOfOneTwoOrFive() {
    assertEquals(1, OverviewView.countTickUnit(0));
    assertEquals(1, OverviewView.countTickUnit(1));
    assertEquals(1, OverviewView.countTickUnit(10));
    assertEquals(2, OverviewView.countTickUnit(11));
    assertEquals(5, OverviewView.countTickUnit(47));
    assertEquals(200, OverviewView.countTickUnit(1250));
    assertEquals(10_000, OverviewView.countTickUnit(100_000));
  }
}
