package dev.danmakuledger.merkle.cli;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A room log message entry, {@code v1 <seq> M <messageId> <deviceId> <deviceIndex>
 * <deviceLeafHashHex> <idempotencyKey>} (docs/room-log.md, version 1), read in the minimal form an
 * audit bundle needs: the fields that point at the device-log leaf. The full parser is protocol's
 * {@code RoomLogEntry}, which merkle may not use; this one is as strict about the shape (printable
 * ASCII, single spaces, canonical decimals, lowercase hash hex) so an entry has one reading.
 */
record RoomMessageEntry(
    long seq,
    long messageId,
    String deviceId,
    long deviceIndex,
    String deviceLeafHashHex,
    String idempotencyKey) {
  private static final Pattern DECIMAL = Pattern.compile("0|[1-9][0-9]{0,18}");
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern HASH = Pattern.compile("[0-9a-f]{64}");

  /**
   * Parses a message entry.
   *
   * @throws IllegalArgumentException saying what is wrong, including for a tombstone
   */
  static RoomMessageEntry parse(byte[] entry) {
    for (byte b : entry) {
      if (b < 0x20 || b > 0x7e) {
        throw new IllegalArgumentException("entry: not printable ASCII");
      }
    }
    String text = new String(entry, StandardCharsets.US_ASCII);
    String[] f = text.split(" ", -1);
    if (f.length >= 3 && f[0].equals("v1") && f[2].equals("T")) {
      throw new IllegalArgumentException("entry: a tombstone, want a message entry");
    }
    if (f.length != 8 || !f[0].equals("v1") || !f[2].equals("M")) {
      throw new IllegalArgumentException(
          "entry: want \"v1 <seq> M <messageId> <deviceId> <deviceIndex> <leafHash> <key>\", got \""
              + (text.length() <= 60 ? text : text.substring(0, 60) + "...")
              + "\"");
    }
    if (!ID.matcher(f[4]).matches()) {
      throw new IllegalArgumentException("entry deviceId: malformed \"" + f[4] + "\"");
    }
    if (!HASH.matcher(f[6]).matches()) {
      throw new IllegalArgumentException("entry deviceLeafHashHex: want 64 lowercase hex digits");
    }
    if (!f[7].startsWith(f[4] + ":")) {
      throw new IllegalArgumentException(
          "entry idempotencyKey: got \"" + f[7] + "\", want one of device " + f[4]);
    }
    long seq = decimal(f[1], "seq");
    if (seq == 0) {
      throw new IllegalArgumentException("entry seq: got 0, want >= 1");
    }
    return new RoomMessageEntry(
        seq, decimal(f[3], "messageId"), f[4], decimal(f[5], "deviceIndex"), f[6], f[7]);
  }

  private static long decimal(String s, String field) {
    if (!DECIMAL.matcher(s).matches()) {
      throw new IllegalArgumentException("entry " + field + ": got \"" + s + "\", want decimal");
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("entry " + field + ": out of range", e);
    }
  }
}
