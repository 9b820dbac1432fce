package dev.danmakuledger.merkle.tiles;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * C2SP tlog-tiles entry bundles: a sequence of log entries, each prefixed by its length as a
 * big-endian uint16, {@value TileId#FULL_WIDTH} entries in a full bundle. Entry {@code i} of bundle
 * {@code N} is leaf {@code 256 * N + i}; its RFC 6962 leaf hash is hash {@code i} of level-0 tile
 * {@code N}.
 */
public final class EntryBundle {
  /** Largest entry a uint16 length prefix can describe. */
  public static final int MAX_ENTRY_BYTES = 0xffff;

  private EntryBundle() {}

  /**
   * Encodes {@code entries} as one bundle.
   *
   * @throws IllegalArgumentException if there are more than 256 entries or one exceeds {@link
   *     #MAX_ENTRY_BYTES}
   */
  public static byte[] encode(List<byte[]> entries) {
    if (entries.size() > TileId.FULL_WIDTH) {
      throw new IllegalArgumentException(
          "entry bundle: got " + entries.size() + " entries, want at most " + TileId.FULL_WIDTH);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < entries.size(); i++) {
      byte[] e = entries.get(i);
      if (e.length > MAX_ENTRY_BYTES) {
        throw new IllegalArgumentException(
            "entry " + i + ": got " + e.length + " bytes, want at most " + MAX_ENTRY_BYTES);
      }
      out.write(e.length >>> 8);
      out.write(e.length & 0xff);
      out.write(e, 0, e.length);
    }
    return out.toByteArray();
  }

  /**
   * Decodes a bundle that must hold exactly {@code count} entries and nothing after them.
   *
   * @throws IllegalArgumentException if the bundle is truncated, has trailing bytes or holds
   *     another number of entries
   */
  public static List<byte[]> decode(byte[] bundle, int count) {
    if (count < 0 || count > TileId.FULL_WIDTH) {
      throw new IllegalArgumentException(
          "entry count: got " + count + ", want 0.." + TileId.FULL_WIDTH);
    }
    List<byte[]> out = new ArrayList<>(count);
    int pos = 0;
    while (pos < bundle.length) {
      if (out.size() == count) {
        throw new IllegalArgumentException(
            "entry bundle: " + (bundle.length - pos) + " bytes after the " + count + " entries");
      }
      if (bundle.length - pos < 2) {
        throw new IllegalArgumentException(
            "entry bundle: truncated length prefix of entry " + out.size());
      }
      int len = (bundle[pos] & 0xff) << 8 | bundle[pos + 1] & 0xff;
      pos += 2;
      if (bundle.length - pos < len) {
        throw new IllegalArgumentException(
            "entry bundle: entry "
                + out.size()
                + " wants "
                + len
                + " bytes, got "
                + (bundle.length - pos));
      }
      byte[] e = new byte[len];
      System.arraycopy(bundle, pos, e, 0, len);
      pos += len;
      out.add(e);
    }
    if (out.size() != count) {
      throw new IllegalArgumentException(
          "entry bundle: got " + out.size() + " entries, want " + count);
    }
    return out;
  }
}
