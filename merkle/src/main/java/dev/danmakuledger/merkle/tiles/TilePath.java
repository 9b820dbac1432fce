package dev.danmakuledger.merkle.tiles;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The C2SP tlog-tiles path encoding: a tile index is written as zero-padded 3-digit elements, all
 * but the last prefixed with {@code x} (1234067 is {@code x001/x234/067}); a partial tile of width
 * W adds {@code .p/<W>}. Parsing is strict, so every tile has exactly one accepted path.
 */
public final class TilePath {
  private static final Pattern TILE =
      Pattern.compile("tile/(0|[1-9][0-9]?)/((?:x[0-9]{3}/)*[0-9]{3})(?:\\.p/([1-9][0-9]{0,2}))?");
  private static final Pattern ENTRIES =
      Pattern.compile("tile/entries/((?:x[0-9]{3}/)*[0-9]{3})(?:\\.p/([1-9][0-9]{0,2}))?");

  private TilePath() {}

  /**
   * Encodes a tile index as 3-digit path elements.
   *
   * @throws IllegalArgumentException if {@code index} is negative
   */
  public static String encodeIndex(long index) {
    if (index < 0) {
      throw new IllegalArgumentException("tile index: got " + index + ", want >= 0");
    }
    StringBuilder out = new StringBuilder(String.format("%03d", index % 1000));
    for (long n = index / 1000; n > 0; n /= 1000) {
      out.insert(0, String.format("x%03d/", n % 1000));
    }
    return out.toString();
  }

  /**
   * Parses a hash tile path {@code tile/<L>/<N>[.p/<W>]}.
   *
   * @throws IllegalArgumentException unless the path is the canonical path of a valid tile
   */
  public static TileId parseTile(String path) {
    Matcher m = TILE.matcher(path);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "tile path: got \"" + abbreviate(path) + "\", want tile/<L>/<N>[.p/<W>]");
    }
    return checked(path, Integer.parseInt(m.group(1)), m.group(2), m.group(3));
  }

  /**
   * Parses an entry bundle path {@code tile/entries/<N>[.p/<W>]} into level-0 coordinates.
   *
   * @throws IllegalArgumentException unless the path is the canonical path of a valid bundle
   */
  public static TileId parseEntries(String path) {
    Matcher m = ENTRIES.matcher(path);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "entry bundle path: got \"" + abbreviate(path) + "\", want tile/entries/<N>[.p/<W>]");
    }
    return checked(path, 0, m.group(1), m.group(2));
  }

  private static TileId checked(String path, int level, String encodedIndex, String width) {
    String digits = encodedIndex.replace("x", "").replace("/", "");
    if (digits.length() > 18) {
      throw new IllegalArgumentException("tile path: index in \"" + path + "\" is too large");
    }
    long index = Long.parseLong(digits);
    int w = width == null ? TileId.FULL_WIDTH : Integer.parseInt(width);
    if (width != null && w >= TileId.FULL_WIDTH) {
      throw new IllegalArgumentException(
          "tile path: partial width in \"" + path + "\": got " + w + ", want 1..255");
    }
    TileId id = new TileId(level, index, w);
    String canonical =
        level == 0 && path.startsWith("tile/entries/") ? id.entriesPath() : id.path();
    if (!canonical.equals(path)) {
      throw new IllegalArgumentException(
          "tile path: got \"" + path + "\", want the canonical \"" + canonical + "\"");
    }
    return id;
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "...";
  }
}
