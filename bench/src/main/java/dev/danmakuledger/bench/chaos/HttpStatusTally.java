package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.protocol.error.ErrorCode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the HTTP responses that pass through a {@link FaultProxy} by status, and every 5xx by its
 * RFC 9457 problem {@code code} and whether it carried {@code Retry-After}: the chaos verdict holds
 * that no response is a 5xx other than the documented outage answer (503 with {@code Retry-After},
 * code {@code redis-unavailable} or {@code sql-unavailable}, docs/errors.md). It reads the first
 * response of each connection (the chaos agents open one connection per request); streams that are
 * not HTTP (the Redis proxy) are not counted.
 */
final class HttpStatusTally {
  private static final int HEAD_LIMIT = 8 * 1024;
  private static final Pattern STATUS = Pattern.compile("^HTTP/1\\.[01] (\\d{3})");
  private static final Pattern CODE = Pattern.compile("\"code\"\\s*:\\s*\"([a-z0-9-]+)\"");

  private static final String BALANCER_MARK =
      "\r\n" + HaproxyConfig.BALANCER_HEADER.toLowerCase(Locale.ROOT) + ": haproxy";

  private final AtomicLong responses = new AtomicLong();
  private final Map<String, AtomicLong> serverErrors = new ConcurrentHashMap<>();

  /** A reader of one response stream. */
  final class Sniffer {
    private final ByteArrayOutputStream head = new ByteArrayOutputStream();
    private boolean finished;

    /** Sees {@code n} more bytes of the response. */
    void feed(byte[] buf, int n) {
      int room = HEAD_LIMIT - head.size();
      if (room > 0) {
        head.write(buf, 0, Math.min(room, n));
      }
    }

    /** The stream ended (or was cut): classifies what was seen, once. */
    void finish() {
      if (finished) {
        return;
      }
      finished = true;
      record(head.toString(StandardCharsets.ISO_8859_1));
    }
  }

  Sniffer sniffer() {
    return new Sniffer();
  }

  /** HTTP responses seen. */
  long responses() {
    return responses.get();
  }

  /**
   * Every 5xx seen, by {@code "<status> <code>[ retry-after][ balancer]"} (code {@code -} when the
   * body had none; {@code balancer} when the load balancer made the answer itself).
   */
  Map<String, Long> serverErrors() {
    Map<String, Long> out = new TreeMap<>();
    serverErrors.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /**
   * True for an answer the load balancer made itself ({@link HaproxyConfig#BALANCER_HEADER}, with
   * {@code Retry-After}): no instance was reached, so no instance answered 5xx.
   */
  static boolean isBalancerAnswer(String key) {
    return key.endsWith(" retry-after balancer");
  }

  /** True for the documented outage answer, the one 5xx of an instance the verdict accepts. */
  static boolean isOutageAnswer(String key) {
    for (ErrorCode c : List.of(ErrorCode.REDIS_UNAVAILABLE, ErrorCode.SQL_UNAVAILABLE)) {
      if (key.equals(c.status() + " " + c.code() + " retry-after")) {
        return true;
      }
    }
    return false;
  }

  private void record(String head) {
    Matcher status = STATUS.matcher(head);
    if (!status.find()) {
      return;
    }
    responses.incrementAndGet();
    int code = Integer.parseInt(status.group(1));
    if (code < 500) {
      return;
    }
    int end = head.indexOf("\r\n\r\n");
    String headers = (end < 0 ? head : head.substring(0, end)).toLowerCase(Locale.ROOT);
    Matcher problem = CODE.matcher(end < 0 ? "" : head.substring(end));
    String key =
        code
            + " "
            + (problem.find() ? problem.group(1) : "-")
            + (headers.contains("\r\nretry-after:") ? " retry-after" : "")
            + (headers.contains(BALANCER_MARK) ? " balancer" : "");
    serverErrors.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
  }
}
