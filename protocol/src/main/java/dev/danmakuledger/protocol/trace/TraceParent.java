package dev.danmakuledger.protocol.trace;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A W3C Trace Context {@code traceparent} header, version 00 (W3C Trace Context §3.2): {@code
 * 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}. An all-zero trace or parent id is
 * invalid. A header that does not parse is ignored and a new trace started (§3.2.2.1), never
 * refused.
 *
 * @param traceId 32 lower-case hex digits, not all zero
 * @param parentId 16 lower-case hex digits, not all zero
 * @param sampled the sampled flag
 */
public record TraceParent(String traceId, String parentId, boolean sampled) {
  /** The header name. */
  public static final String HEADER = "traceparent";

  /** Longest header value considered; longer ones are ignored unread. */
  static final int MAX_LENGTH = 512;

  private static final Pattern TRACE_ID = Pattern.compile("[0-9a-f]{32}");
  private static final Pattern PARENT_ID = Pattern.compile("[0-9a-f]{16}");
  private static final Pattern VERSION_00 =
      Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");
  private static final Pattern FUTURE =
      Pattern.compile("([0-9a-e][0-9a-f])-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?");
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();

  /** Validates both ids. */
  public TraceParent {
    if (traceId == null || !TRACE_ID.matcher(traceId).matches() || zero(traceId)) {
      throw new IllegalArgumentException(
          "traceId: got " + traceId + ", want 32 lower-case hex digits, not all zero");
    }
    if (parentId == null || !PARENT_ID.matcher(parentId).matches() || zero(parentId)) {
      throw new IllegalArgumentException(
          "parentId: got " + parentId + ", want 16 lower-case hex digits, not all zero");
    }
  }

  private static boolean zero(String hex) {
    return hex.chars().allMatch(c -> c == '0');
  }

  /**
   * Parses a header value; empty if absent or invalid. Versions above 00 are read by their 00
   * prefix (§3.2.4.1); version ff is invalid.
   */
  public static Optional<TraceParent> parse(String header) {
    if (header == null || header.length() > MAX_LENGTH) {
      return Optional.empty();
    }
    String h = header.strip();
    var m = VERSION_00.matcher(h);
    String trace;
    String parent;
    String flags;
    if (m.matches()) {
      trace = m.group(1);
      parent = m.group(2);
      flags = m.group(3);
    } else {
      var f = FUTURE.matcher(h);
      if (!f.matches() || "00".equals(f.group(1))) {
        return Optional.empty();
      }
      trace = f.group(2);
      parent = f.group(3);
      flags = f.group(4);
    }
    if (zero(trace) || zero(parent)) {
      return Optional.empty();
    }
    boolean sampled = (Integer.parseInt(flags, 16) & 1) == 1;
    return Optional.of(new TraceParent(trace, parent, sampled));
  }

  /** A new trace with a random trace id and parent id, sampled. */
  public static TraceParent random() {
    byte[] trace = new byte[16];
    byte[] parent = new byte[8];
    do {
      RANDOM.nextBytes(trace);
      RANDOM.nextBytes(parent);
    } while (zero(HEX.formatHex(trace)) || zero(HEX.formatHex(parent)));
    return new TraceParent(HEX.formatHex(trace), HEX.formatHex(parent), true);
  }

  /** The header value. */
  public String header() {
    return "00-" + traceId + "-" + parentId + "-" + (sampled ? "01" : "00");
  }
}
