package dev.danmakuledger.ui.overview;

import dev.danmakuledger.protocol.wire.admin.ClusterHistory;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.ui.history.OverviewSample;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the server's cumulative counters into the overview's time series. A submission is any
 * record that reached a duplicate check: every server outcome plus the duplicates the edge caught
 * before sending. The duplicate rate at a sample is the share of the submissions since the newest
 * sample at least {@link #RATE_WINDOW} older (or the first) that were duplicates, in percent, so
 * one-second polls do not turn batch boundaries into spikes. A counter that went down (the server
 * restarted) starts a new baseline instead of a negative rate. The server's per-minute history
 * (docs/sync-server.md, "History") becomes one point per minute.
 */
final class Series {
  static final Duration RATE_WINDOW = Duration.ofSeconds(10);
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private Series() {}

  static OverviewSample sample(Instant at, Overview o) {
    long outcomes = o.outcomes().values().stream().mapToLong(Long::longValue).sum();
    long duplicates = o.duplicates().edge() + o.duplicates().redis() + o.duplicates().sql();
    return new OverviewSample(
        at,
        Math.max(0, o.recordsPerSecond()),
        outcomes + o.duplicates().edge(),
        duplicates,
        o.alerts());
  }

  /**
   * The server's per-minute history as chart points at each minute's end: throughput in records per
   * second and the share of the minute's records that were duplicates the server caught (edge
   * duplicates are not in the server's history). The running minute (the newest point, still
   * growing) and minutes no instance sampled are left out.
   */
  static Charts fromHistory(ClusterHistory history) {
    List<ChartPoint> rate = new ArrayList<>();
    List<ChartPoint> dup = new ArrayList<>();
    List<ClusterHistory.Minute> points = history.points();
    for (int i = 0; i < points.size() - 1; i++) {
      ClusterHistory.Minute m = points.get(i);
      if (m.instances() == 0) {
        continue;
      }
      Instant end;
      try {
        end = Instant.parse(m.minute()).plus(MINUTE);
      } catch (DateTimeParseException e) {
        continue;
      }
      rate.add(new ChartPoint(end, m.records() / (double) MINUTE.toSeconds(), MINUTE));
      double share = m.records() == 0 ? 0 : Math.min(100.0, 100.0 * m.duplicates() / m.records());
      dup.add(new ChartPoint(end, share, MINUTE));
    }
    return new Charts(rate, dup);
  }

  /** The two time series of the overview. */
  record Charts(List<ChartPoint> throughput, List<ChartPoint> duplicateRate) {
    Charts {
      throughput = List.copyOf(throughput);
      duplicateRate = List.copyOf(duplicateRate);
    }

    /** These points up to {@code until} (inclusive), then {@code later}. */
    Charts before(Instant until, List<ChartPoint> laterThroughput, List<ChartPoint> laterRate) {
      return new Charts(
          join(throughput, until, laterThroughput), join(duplicateRate, until, laterRate));
    }

    private static List<ChartPoint> join(
        List<ChartPoint> first, Instant until, List<ChartPoint> later) {
      List<ChartPoint> out = new ArrayList<>();
      for (ChartPoint p : first) {
        if (!p.at().isAfter(until)) {
          out.add(p);
        }
      }
      out.addAll(later);
      return out;
    }
  }

  static List<ChartPoint> throughput(List<OverviewSample> samples) {
    List<ChartPoint> out = new ArrayList<>(samples.size());
    for (OverviewSample s : samples) {
      out.add(new ChartPoint(s.at(), s.recordsPerSecond()));
    }
    return out;
  }

  static List<ChartPoint> duplicateRate(List<OverviewSample> samples) {
    List<ChartPoint> out = new ArrayList<>();
    int base = 0;
    for (int i = 1; i < samples.size(); i++) {
      OverviewSample prev = samples.get(i - 1);
      OverviewSample b = samples.get(i);
      if (b.outcomes() < prev.outcomes() || b.duplicates() < prev.duplicates()) {
        base = i;
        continue;
      }
      Instant windowStart = b.at().minus(RATE_WINDOW);
      while (base + 1 < i && !samples.get(base + 1).at().isAfter(windowStart)) {
        base++;
      }
      OverviewSample a = samples.get(base);
      long submitted = b.outcomes() - a.outcomes();
      long duplicated = b.duplicates() - a.duplicates();
      double rate = submitted == 0 ? 0 : Math.min(100.0, 100.0 * duplicated / submitted);
      out.add(new ChartPoint(b.at(), rate));
    }
    return out;
  }
}
