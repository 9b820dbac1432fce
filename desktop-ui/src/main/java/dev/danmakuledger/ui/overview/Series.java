package dev.danmakuledger.ui.overview;

import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.ui.history.OverviewSample;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the server's cumulative counters into the overview's time series. A submission is any
 * record that reached a duplicate check: every server outcome plus the duplicates the edge caught
 * before sending. The duplicate rate between two samples is the share of new submissions that were
 * duplicates, in percent. A counter that went down (the server restarted) starts a new baseline
 * instead of a negative rate.
 */
final class Series {
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

  static List<ChartPoint> throughput(List<OverviewSample> samples) {
    List<ChartPoint> out = new ArrayList<>(samples.size());
    for (OverviewSample s : samples) {
      out.add(new ChartPoint(s.at(), s.recordsPerSecond()));
    }
    return out;
  }

  static List<ChartPoint> duplicateRate(List<OverviewSample> samples) {
    List<ChartPoint> out = new ArrayList<>();
    for (int i = 1; i < samples.size(); i++) {
      OverviewSample a = samples.get(i - 1);
      OverviewSample b = samples.get(i);
      long submitted = b.outcomes() - a.outcomes();
      long duplicated = b.duplicates() - a.duplicates();
      if (submitted < 0 || duplicated < 0) {
        continue;
      }
      double rate = submitted == 0 ? 0 : Math.min(100.0, 100.0 * duplicated / submitted);
      out.add(new ChartPoint(b.at(), rate));
    }
    return out;
  }
}
