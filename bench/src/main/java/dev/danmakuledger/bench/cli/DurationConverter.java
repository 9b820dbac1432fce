package dev.danmakuledger.bench.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses a positive {@code 90s}, {@code 3m}, {@code 1h}, {@code 500ms} or ISO-8601 ({@code PT3M});
 * {@link OrZero} takes {@code 0s} as well.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  /** A duration that may be zero, for an option whose zero means "none". */
  static final class OrZero implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Duration d = parse(value);
      if (d.isNegative()) {
        throw new CommandLine.TypeConversionException(
            "got '" + value + "', want a duration of 0s or more");
      }
      return d;
    }
  }

  @Override
  public Duration convert(String value) {
    Duration d = parse(value);
    if (d.isNegative() || d.isZero()) {
      throw new CommandLine.TypeConversionException(
          "got '" + value + "', want a positive duration");
    }
    return d;
  }

  private static Duration parse(String value) {
    Matcher m = SHORT.matcher(value.strip());
    Duration d;
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
          };
    } else {
      try {
        d = Duration.parse(value.strip());
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException(
            "got '" + value + "', want a duration such as 90s, 3m, 1h or PT3M");
      }
    }
    return d;
  }
}
