package dev.danmakuledger.protocol.room;

import dev.danmakuledger.protocol.Quote;
import java.util.regex.Pattern;

/** Canonical non-negative decimals of room log entries: no sign, no leading zeros, fits a long. */
final class Decimal {
  private static final Pattern CANONICAL = Pattern.compile("0|[1-9][0-9]{0,18}");

  private Decimal() {}

  static long parse(String field, String value) {
    if (!CANONICAL.matcher(value).matches()) {
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
}
