package dev.danmakuledger.server.http;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;

/**
 * The one parser of numbers in paths, queries and headers: a canonical non-negative decimal, ASCII
 * digits only ({@code 0} or a digit 1-9 followed by digits, RFC 9110 §5.6.1 {@code 1*DIGIT} without
 * leading zeros), at most {@code Long.MAX_VALUE}. Signs, leading zeros, spaces and non-ASCII digits
 * (which {@link Long#parseLong} accepts) are refused, so every number has exactly one spelling.
 */
final class Decimal {
  /** Digits of {@code Long.MAX_VALUE}. */
  static final int MAX_DIGITS = 19;

  private Decimal() {}

  /**
   * {@code raw} as a non-negative long.
   *
   * @throws LedgerException INVALID_FIELD naming {@code name} when {@code raw} is not canonical
   */
  static long parse(String name, String raw) {
    return parse(name, raw, 0, Long.MAX_VALUE);
  }

  /**
   * {@code raw} as a long in {@code min..max}.
   *
   * @throws LedgerException INVALID_FIELD naming {@code name} and the range when {@code raw} is not
   *     canonical or out of range
   */
  static long parse(String name, String raw, long min, long max) {
    if (!isCanonical(raw)) {
      throw refused(name, raw, min, max);
    }
    long v = 0;
    for (int i = 0; i < raw.length(); i++) {
      int digit = raw.charAt(i) - '0';
      if (v > (Long.MAX_VALUE - digit) / 10) {
        throw refused(name, raw, min, max);
      }
      v = v * 10 + digit;
    }
    if (v < min || v > max) {
      throw refused(name, raw, min, max);
    }
    return v;
  }

  private static boolean isCanonical(String raw) {
    if (raw == null || raw.isEmpty() || raw.length() > MAX_DIGITS) {
      return false;
    }
    if (raw.length() > 1 && raw.charAt(0) == '0') {
      return false;
    }
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static LedgerException refused(String name, String raw, long min, long max) {
    return new LedgerException(
        ErrorCode.INVALID_FIELD,
        name
            + ": got "
            + Requests.quote(raw)
            + ", want a decimal integer in "
            + min
            + ".."
            + max
            + " written with ASCII digits only, no sign and no leading zero (e.g. 0, 7, 42)");
  }
}
