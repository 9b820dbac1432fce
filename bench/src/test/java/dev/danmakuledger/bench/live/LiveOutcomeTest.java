package dev.danmakuledger.bench.live;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.bench.report.BenchResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A live run's p99 only counts when the device kept up with the offered rate. */
class LiveOutcomeTest {
  private static LiveBenchmark.Outcome outcome(double achieved, long received, double p99) {
    return new LiveBenchmark.Outcome(
        Duration.ofMillis(20),
        20_000,
        received,
        1_000.0,
        achieved,
        30,
        12.0,
        p99,
        0.2,
        1.5,
        40.0,
        55.0,
        Duration.ZERO,
        0,
        0.05);
  }

  @Test
  void aDeviceThatKeptUpWithinTheTargetMeetsIt() {
    LiveBenchmark.Outcome o = outcome(998.0, 20_000, 60.0);
    assertTrue(o.valid());
    assertTrue(o.meetsTarget());
    BenchResult row = LiveBenchmark.row(1_000, 1, Duration.ofSeconds(20), o);
    assertTrue(
        row.note().contains("offered 1000.0 msg/s, achieved 998.0 msg/s (kept up)"), row.note());
    assertTrue(row.note().contains("target p99 <= 70 ms: met"), row.note());
  }

  @Test
  void aDeviceThatFellBehindMeasuredItsBacklogAndIsNotValidHoweverLowItsP99() {
    // 1,692 of 20,000 sent in the window: the percentiles are the queue's waiting time
    LiveBenchmark.Outcome o = outcome(84.6, 20_000, 19.0);
    assertFalse(o.valid());
    assertFalse(o.meetsTarget());
    BenchResult row = LiveBenchmark.row(1_000, 1, Duration.ofSeconds(20), o);
    assertTrue(row.note().contains("not valid: the device fell behind"), row.note());
    assertTrue(row.note().contains("not shown (not valid)"), row.note());
  }

  @Test
  void justBelowTheKeepUpShareIsNotValid() {
    assertFalse(outcome(1_000.0 * LiveBenchmark.KEEP_UP - 0.1, 20_000, 10.0).valid());
    assertTrue(outcome(1_000.0 * LiveBenchmark.KEEP_UP, 20_000, 10.0).valid());
  }

  @Test
  void aViewerThatMissedMessagesIsNotValid() {
    assertFalse(outcome(1_000.0, 19_999, 10.0).valid());
  }

  @Test
  void aKeptUpRunOverTheTargetMissesIt() {
    LiveBenchmark.Outcome o = outcome(1_000.0, 20_000, 70.5);
    assertTrue(o.valid());
    assertFalse(o.meetsTarget());
  }

  @Test
  void theBestLingerIsTheLowestP99AmongRunsThatKeptUp() {
    LiveBenchmark.Outcome fellBehind =
        new LiveBenchmark.Outcome(
            Duration.ofMillis(5),
            20_000,
            20_000,
            1_000.0,
            600.0,
            900,
            1.0,
            2.0,
            0.2,
            1.5,
            900.0,
            950.0,
            Duration.ZERO,
            0,
            0.05);
    LiveBenchmark.Outcome ten =
        new LiveBenchmark.Outcome(
            Duration.ofMillis(10),
            20_000,
            20_000,
            1_000.0,
            998.0,
            40,
            20.0,
            45.0,
            0.2,
            1.5,
            30.0,
            35.0,
            Duration.ZERO,
            0,
            0.05);
    LiveBenchmark.Outcome fifty =
        new LiveBenchmark.Outcome(
            Duration.ofMillis(50),
            20_000,
            20_000,
            1_000.0,
            997.0,
            80,
            60.0,
            90.0,
            0.2,
            1.5,
            30.0,
            35.0,
            Duration.ZERO,
            0,
            0.05);
    String best = LiveBenchmark.best(List.of(fellBehind, fifty, ten));
    assertTrue(best.contains("linger 10 ms, p99 45.00 ms (target <= 60 ms: met)"), best);
    assertTrue(
        LiveBenchmark.best(List.of(fellBehind)).startsWith("no linger kept up"),
        LiveBenchmark.best(List.of(fellBehind)));
  }

  @Test
  void optionsRefuseADatabaseThatIsNoMariaDbServer() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new LiveBenchmark.Options(
                1_000,
                1,
                Duration.ofSeconds(20),
                Duration.ofSeconds(10),
                List.of(Duration.ofMillis(20)),
                null,
                "jdbc:postgresql://x/y",
                null));
  }

  @Test
  void optionsRefuseBadRatesDurationsAndLingers() {
    Duration s = Duration.ofSeconds(20);
    Duration w = Duration.ofSeconds(10);
    List<Duration> l = List.of(Duration.ofMillis(20));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LiveBenchmark.Options(0, 1, s, w, l, null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LiveBenchmark.Options(1_000, 1, Duration.ofMillis(500), w, l, null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LiveBenchmark.Options(1_000, 1, s, w, List.of(), null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new LiveBenchmark.Options(
                1_000, 1, s, w, List.of(Duration.ofSeconds(2)), null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LiveBenchmark.Options(1_000, 0, s, w, l, null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LiveBenchmark.Options(1_000, 1_025, s, w, l, null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LiveBenchmark.Options(255, 256, s, w, l, null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LiveBenchmark.Options(1_000, 1, s, Duration.ofMillis(-1), l, null, null, null));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LiveBenchmark.Options(1_000, 1, s, Duration.ofSeconds(601), l, null, null, null));
    new LiveBenchmark.Options(1_000, 1, s, Duration.ZERO, l, null, null, null);
    new LiveBenchmark.Options(1_000, 1, s, Duration.ofMinutes(10), l, null, null, null);
    new LiveBenchmark.Options(256, 256, s, w, l, null, null, null);
    new LiveBenchmark.Options(1_024, 1_024, s, w, l, null, null, null);
  }

  /** A kept-up run at linger 50 ms over a link of {@code rttMs}. */
  private static LiveBenchmark.Outcome overLink(double p99, long rttMs, long resends) {
    return new LiveBenchmark.Outcome(
        Duration.ofMillis(50),
        20_000,
        20_000,
        1_000.0,
        1_000.0,
        40,
        80.0,
        p99,
        0.2,
        1.5,
        70.0,
        90.0,
        Duration.ofMillis(rttMs),
        resends,
        0.05);
  }

  @Test
  void overALinkTheTargetGrowsByItsRoundTrip() {
    // venue: linger 50 + RTT 30 + 50 = 130 ms
    LiveBenchmark.Outcome justIn = overLink(130.0, 30, 2);
    assertTrue(justIn.meetsTarget());
    BenchResult row = LiveBenchmark.row(1_000, 1, Duration.ofSeconds(20), justIn);
    assertTrue(row.note().contains("link RTT 30 ms; target p99 <= 130 ms: met"), row.note());
    assertTrue(row.note().contains("2 sent again after a cut"), row.note());
    assertFalse(overLink(130.1, 30, 0).meetsTarget());
    assertTrue(overLink(100.0, 0, 0).meetsTarget());
    assertFalse(overLink(100.1, 0, 0).meetsTarget());
  }
}
