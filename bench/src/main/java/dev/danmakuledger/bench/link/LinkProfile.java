package dev.danmakuledger.bench.link;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * A network link between a device and the sync server, as {@link LinkProxy} shapes it: a rate in
 * each direction, a round-trip time split evenly between the two directions, and how often the link
 * drops every connection on it (a mobile handover).
 *
 * @param name how the bench's {@code --link} names it
 * @param upBitsPerSecond device to server, 0 for no limit
 * @param downBitsPerSecond server to device, 0 for no limit
 * @param rtt round-trip time, zero or more
 * @param meanTimeBetweenDrops mean of the exponentially distributed time between drops, or null for
 *     a link that never drops
 */
public record LinkProfile(
    String name,
    long upBitsPerSecond,
    long downBitsPerSecond,
    Duration rtt,
    Duration meanTimeBetweenDrops) {

  /** No limit at all: measures what the proxy itself costs. */
  public static final LinkProfile LOOPBACK = new LinkProfile("loopback", 0, 0, Duration.ZERO, null);

  /** A venue's wired uplink: 20 Mbit/s each way, 30 ms. */
  public static final LinkProfile VENUE =
      new LinkProfile("venue", 20_000_000, 20_000_000, Duration.ofMillis(30), null);

  /**
   * A 4G modem: 5 Mbit/s up, 20 Mbit/s down, 80 ms, and every connection dropped about twice a
   * minute.
   */
  public static final LinkProfile FOUR_G =
      new LinkProfile("4g", 5_000_000, 20_000_000, Duration.ofMillis(80), Duration.ofSeconds(30));

  /** A geostationary satellite link: 2 Mbit/s each way, 600 ms. */
  public static final LinkProfile SATELLITE =
      new LinkProfile("satellite", 2_000_000, 2_000_000, Duration.ofMillis(600), null);

  public LinkProfile {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(rtt, "rtt");
    if (upBitsPerSecond < 0 || downBitsPerSecond < 0) {
      throw new IllegalArgumentException(
          "rates: got up "
              + upBitsPerSecond
              + ", down "
              + downBitsPerSecond
              + " bit/s, want >= 0 (0 for no limit)");
    }
    if (rtt.isNegative()) {
      throw new IllegalArgumentException("rtt: got " + rtt + ", want >= 0");
    }
    if (meanTimeBetweenDrops != null
        && (meanTimeBetweenDrops.isNegative() || meanTimeBetweenDrops.isZero())) {
      throw new IllegalArgumentException(
          "mean time between drops: got " + meanTimeBetweenDrops + ", want > 0 or none");
    }
  }

  /** The profile named {@code name}: loopback, venue, 4g or satellite. */
  public static LinkProfile named(String name) {
    for (LinkProfile p : new LinkProfile[] {LOOPBACK, VENUE, FOUR_G, SATELLITE}) {
      if (p.name.equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "link: got " + name + ", want loopback, venue, 4g or satellite");
  }

  /** Device-to-server bytes a second, or 0 for no limit. */
  public long upBytesPerSecond() {
    return upBitsPerSecond / 8;
  }

  /** Server-to-device bytes a second, or 0 for no limit. */
  public long downBytesPerSecond() {
    return downBitsPerSecond / 8;
  }

  /** E.g. {@code 4g (5 Mbit/s up, 20 Mbit/s down, RTT 80 ms, drops every ~60 s)}. */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "%s (%s up, %s down, RTT %d ms%s)",
        name,
        rate(upBitsPerSecond),
        rate(downBitsPerSecond),
        rtt.toMillis(),
        meanTimeBetweenDrops == null
            ? ""
            : ", drops every ~" + meanTimeBetweenDrops.toSeconds() + " s");
  }

  private static String rate(long bits) {
    return bits == 0 ? "unlimited" : String.format(Locale.ROOT, "%.0f Mbit/s", bits / 1e6);
  }
}
