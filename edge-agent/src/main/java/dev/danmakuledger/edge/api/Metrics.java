package dev.danmakuledger.edge.api;

import dev.danmakuledger.edge.capture.AgentStatus;
import dev.danmakuledger.edge.capture.DedupeStats;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;

/** The Prometheus text exposition (format 0.0.4) of the agent's counters and gauges. */
final class Metrics {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final StringBuilder out = new StringBuilder();

  private Metrics() {}

  static String render(AgentStatus s, SortedMap<Integer, Long> responses, int queued) {
    Metrics m = new Metrics();
    DedupeStats d = s.dedupe();
    m.counter("edge_captures_total", "Records appended to the device log.", d.captures());
    m.counter("edge_bloom_checks_total", "Bloom filter queries.", d.checks());
    m.counter("edge_bloom_maybe_total", "Bloom filter maybe answers.", d.maybes());
    m.counter(
        "edge_bloom_false_positives_total",
        "Bloom maybe answers whose exact lookup found nothing.",
        d.falsePositives());
    m.counter("edge_duplicates_total", "Repeats confirmed by an exact lookup.", d.duplicates());
    m.counter(
        "edge_bloom_misses_total",
        "Repeats older than the Bloom window, caught by the UNIQUE index.",
        d.bloomMisses());
    m.counter("edge_conflicts_total", "Keys reused with different content.", d.conflicts());
    m.gauge("edge_bloom_fpr_measured", "Measured Bloom false-positive rate.", d.measuredFpr());
    m.gauge(
        "edge_bloom_fpr_configured", "Configured Bloom false-positive rate.", d.configuredFpr());
    m.gauge("edge_bloom_memory_bytes", "Bytes held by the Bloom bit arrays.", d.memoryBytes());
    m.gauge("edge_log_size", "Records in the device log.", s.logSize());
    m.gauge("edge_store_bytes", "Store file and WAL size.", s.storeBytes());
    m.gauge("edge_store_max_bytes", "Configured store size bound.", s.maxStoreBytes());
    m.gauge("edge_capture_queue", "Captures waiting for the writer.", queued);
    m.header("edge_api_responses_total", "Local API responses by status.", "counter");
    for (Map.Entry<Integer, Long> e : responses.entrySet()) {
      m.out
          .append("edge_api_responses_total{status=\"")
          .append(e.getKey())
          .append("\"} ")
          .append(e.getValue())
          .append('\n');
    }
    return m.out.toString();
  }

  private void header(String name, String help, String type) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private void counter(String name, String help, long value) {
    header(name, help, "counter");
    out.append(name).append(' ').append(value).append('\n');
  }

  private void gauge(String name, String help, double value) {
    header(name, help, "gauge");
    out.append(name).append(' ').append(String.format(Locale.ROOT, "%s", value)).append('\n');
  }

  private void gauge(String name, String help, long value) {
    header(name, help, "gauge");
    out.append(name).append(' ').append(value).append('\n');
  }
}
