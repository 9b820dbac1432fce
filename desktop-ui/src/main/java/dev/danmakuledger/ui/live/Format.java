package dev.danmakuledger.ui.live;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** How the console writes times, durations and colours for people. */
public final class Format {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");
  private static final DateTimeFormatter DATE_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  private Format() {}

  /** An ISO-8601 instant from the server as local {@code yyyy-MM-dd HH:mm:ss}; "—" if absent. */
  public static String dateTime(String iso, ZoneId zone) {
    if (iso == null || iso.isBlank()) {
      return "—";
    }
    try {
      return DATE_TIME.format(Instant.parse(iso).atZone(zone));
    } catch (DateTimeParseException e) {
      return iso;
    }
  }

  /** An instant as local {@code HH:mm:ss}. */
  public static String time(Instant at, ZoneId zone) {
    return TIME.format(at.atZone(zone));
  }

  /**
   * A clock skew such as "+1.250 s", "−40 ms" or "−3 h 5 min"; "unknown" when the device sent no
   * clock reading (an agent that does not report {@code deviceClockMillis}).
   */
  public static String skew(Long millis) {
    if (millis == null) {
      return "unknown";
    }
    long abs = Math.abs(millis);
    String sign = millis > 0 ? "+" : millis < 0 ? "−" : "";
    if (abs < 1000) {
      return sign + abs + " ms";
    }
    if (abs < 120_000) {
      return sign + String.format("%d.%03d s", abs / 1000, abs % 1000);
    }
    long minutes = abs / 60_000;
    if (minutes < 120) {
      return sign + minutes + " min";
    }
    long hours = minutes / 60;
    if (hours < 48) {
      return sign + hours + " h " + minutes % 60 + " min";
    }
    return sign + hours / 24 + " d " + hours % 24 + " h";
  }

  /** A danmaku colour as {@code #RRGGBB}. */
  public static String colour(int rgb) {
    if (rgb < 0 || rgb > 0xFFFFFF) {
      throw new IllegalArgumentException("colour: got " + rgb + ", want 0..0xFFFFFF (24-bit RGB)");
    }
    return String.format("#%06X", rgb);
  }

  /** A duration in seconds as "42 s", "5 min", "3 h", "2 d"; "—" when negative (unknown). */
  public static String age(long seconds) {
    if (seconds < 0) {
      return "—";
    }
    if (seconds < 60) {
      return seconds + " s";
    }
    if (seconds < 3600) {
      return seconds / 60 + " min";
    }
    if (seconds < 86400) {
      return seconds / 3600 + " h";
    }
    return seconds / 86400 + " d";
  }
}
