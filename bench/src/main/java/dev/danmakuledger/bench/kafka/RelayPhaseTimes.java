package dev.danmakuledger.bench.kafka;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The relay's time per phase ({@code danmaku.kafka.relay.phase}, docs/kafka.md "Lag"), as one log
 * line: for each phase, how often it ran, its mean and its total.
 */
final class RelayPhaseTimes {
  private static final Pattern LINE =
      Pattern.compile(
          "danmaku_kafka_relay_phase_seconds_(count|sum)\\{[^}]*phase=\"([a-z]+)\"[^}]*\\}"
              + " ([0-9.eE+-]+)");

  private RelayPhaseTimes() {}

  /** The phases of the relay metered in {@code registry}. */
  static String of(MeterRegistry registry) {
    Map<String, double[]> phases = new TreeMap<>();
    for (FunctionTimer t : registry.find("danmaku.kafka.relay.phase").functionTimers()) {
      phases.put(
          t.getId().getTag("phase"), new double[] {t.count(), t.totalTime(TimeUnit.SECONDS)});
    }
    return line(phases);
  }

  /** The phases of the relay in a Prometheus scrape ({@code GET /metrics}). */
  static String ofScrape(String scrape) {
    Map<String, double[]> phases = new TreeMap<>();
    for (String l : scrape.split("\n")) {
      Matcher m = LINE.matcher(l);
      if (m.matches()) {
        double[] v = phases.computeIfAbsent(m.group(2), k -> new double[2]);
        v[m.group(1).equals("count") ? 0 : 1] = Double.parseDouble(m.group(3));
      }
    }
    return line(phases);
  }

  private static String line(Map<String, double[]> phases) {
    StringBuilder out = new StringBuilder("relay phases:");
    phases.forEach(
        (phase, v) ->
            out.append(
                String.format(
                    Locale.ROOT,
                    " %s %d x %.2f ms = %.0f ms;",
                    phase,
                    (long) v[0],
                    v[0] == 0 ? 0 : v[1] * 1000 / v[0],
                    v[1] * 1000)));
    return out.toString();
  }
}
