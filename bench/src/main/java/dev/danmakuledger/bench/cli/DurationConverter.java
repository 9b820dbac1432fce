package dev.danmakuledger.bench.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses {@code 90s}, {@code 3m}, {@code 1h}, {@code 500ms} or ISO-8601 ({@code PT3M}). */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  @Override
  public Duration convert(String value) {
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
    if (d.isNegative() || d.isZero()) {
      throw new CommandLine.TypeConversionException(
          "got '" + value + "', want a positive duration");
    }
    return d;
  }
}
