package dev.danmakuledger.bench.live;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An instance's own account of how long it took to answer batches: the cumulative buckets of its
 * {@code danmaku_batch_seconds} histogram (docs/operations.md, "Health, readiness, metrics"), read
 * from {@code /metrics} as an operator's scraper would. Two readings give the batches answered in
 * between, so that a run can tell the server's time from what the devices saw.
 *
 * @param buckets upper bound in seconds to the batches answered within it, cumulative
 */
record ServedBatches(Map<Double, Long> buckets) {
  private static final Pattern BUCKET =
      Pattern.compile("^danmaku_batch_seconds_bucket\\{le=\"([^\"]+)\",?\\} ([0-9.eE+]+)$");

  /** The bounds a run reports, in milliseconds. */
  static final List<Integer> REPORTED_MS = List.of(25, 50, 100, 250);

  ServedBatches {
    buckets = Map.copyOf(buckets);
  }

  /** Reads the histogram from {@code base}'s {@code /metrics}. */
  static ServedBatches scrape(URI base, HttpClient http) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(base.resolve("/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("GET /metrics: HTTP " + r.statusCode());
    }
    return parse(r.body());
  }

  /**
   * The histogram's buckets in a Prometheus text exposition; lines of other series are skipped, and
   * a bucket line whose bound or count is not a number is an error.
   */
  static ServedBatches parse(String exposition) {
    Map<Double, Long> out = new TreeMap<>();
    for (String line : exposition.split("\n")) {
      Matcher m = BUCKET.matcher(line.strip());
      if (!m.matches()) {
        if (line.startsWith("danmaku_batch_seconds_bucket")) {
          throw new IllegalArgumentException("not a histogram bucket: " + line);
        }
        continue;
      }
      double le = m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : parseNumber(m.group(1));
      out.put(le, (long) parseNumber(m.group(2)));
    }
    return new ServedBatches(out);
  }

  private static double parseNumber(String s) {
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number: " + s, e);
    }
  }

  /**
   * Batches answered within {@code seconds} (a bucket bound), or -1 when there is no such bucket.
   */
  long within(double seconds) {
    Long n = buckets.get(seconds);
    return n == null ? -1 : n;
  }

  /**
   * The batches answered between {@code earlier} and this reading, as shares within the reported
   * bounds, e.g. {@code "within 25 ms 10%, 50 ms 78%, 100 ms 100%, 250 ms 100% of 15,266 batches"}.
   */
  String since(ServedBatches earlier) {
    long total = within(Double.POSITIVE_INFINITY) - earlier.within(Double.POSITIVE_INFINITY);
    if (within(Double.POSITIVE_INFINITY) < 0 || total <= 0) {
      return "no batch answered";
    }
    List<String> parts = new ArrayList<>();
    for (int ms : REPORTED_MS) {
      long now = within(ms / 1000.0);
      long then = earlier.within(ms / 1000.0);
      if (now >= 0 && then >= 0) {
        parts.add(String.format(Locale.ROOT, "%d ms %.0f%%", ms, 100.0 * (now - then) / total));
      }
    }
    return String.format(Locale.ROOT, "within %s of %,d batches", String.join(", ", parts), total);
  }
}
