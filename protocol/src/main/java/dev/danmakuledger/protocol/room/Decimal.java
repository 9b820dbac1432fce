package dev.danmakuledger.protocol.room;

import dev.danmakuledger.protocol.Ascii;
import dev.danmakuledger.protocol.Quote;

/** Canonical non-negative decimals of room log entries: no sign, no leading zeros, fits a long. */
final class Decimal {
  private Decimal() {}

  static long parse(String field, String value) {
    if (!isCanonical(value)) {
      throw new IllegalArgumentException(
          field + ": got " + Quote.of(value) + ", want a decimal without sign or leading zeros");
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          field + ": got " + Quote.of(value) + ", want at most " + Long.MAX_VALUE, e);
    }
  }

  /** {@code 0|[1-9][0-9]{0,18}}. */
  private static boolean isCanonical(String value) {
    int n = value.length();
    if (n == 0 || n > 19 || (value.charAt(0) == '0' && n > 1)) {
      return false;
    }
    return Ascii.allDigits(value);
  }
}
