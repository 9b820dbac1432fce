package dev.danmakuledger.protocol.room;

import dev.danmakuledger.protocol.Quote;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.nio.charset.StandardCharsets;

/**
 * Strict parser of room log entry bytes: printable ASCII only, single spaces between fields, the
 * {@code v1} version, then a type-specific field list. Anything that does not re-encode to the same
 * bytes is refused.
 */
final class EntryParser {
  private static final String VERSION = "v1";

  private EntryParser() {}

  static RoomLogEntry parse(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      throw new IllegalArgumentException("room log entry: got no bytes, want \"v1 <seq> ...\"");
    }
    if (bytes.length > RoomLogEntry.MAX_BYTES) {
      throw new IllegalArgumentException(
          "room log entry: got " + bytes.length + " bytes, want at most " + RoomLogEntry.MAX_BYTES);
    }
    for (int i = 0; i < bytes.length; i++) {
      int b = bytes[i] & 0xff;
      if (b < 0x20 || b > 0x7e) {
        throw new IllegalArgumentException(
            "room log entry: byte "
                + i
                + " is 0x"
                + String.format("%02x", b)
                + ", want printable ASCII (fields separated by single spaces, no newline)");
      }
    }
    String text = new String(bytes, StandardCharsets.US_ASCII);
    String[] f = text.split(" ", -1);
    for (int i = 0; i < f.length; i++) {
      if (f[i].isEmpty()) {
        throw new IllegalArgumentException(
            "room log entry: empty field " + (i + 1) + ", want fields separated by single spaces");
      }
    }
    if (f.length < 3 || !f[0].equals(VERSION)) {
      throw new IllegalArgumentException(
          "room log entry: got " + Quote.of(text) + ", want \"v1 <seq> <type> ...\"");
    }
    long seq = Decimal.parse("seq", f[1]);
    RoomLogEntry entry =
        switch (f[2]) {
          case MessageEntry.TYPE -> message(seq, f);
          case TombstoneEntry.TYPE -> tombstone(seq, f);
          default ->
              throw new IllegalArgumentException(
                  "room log entry type: got " + Quote.of(f[2]) + ", want M or T");
        };
    if (!entry.text().equals(text)) {
      throw new IllegalArgumentException(
          "room log entry: got "
              + Quote.of(text)
              + ", want the canonical "
              + Quote.of(entry.text()));
    }
    return entry;
  }

  private static MessageEntry message(long seq, String[] f) {
    checkFields(f, 8, "v1 <seq> M <messageId> <deviceId> <deviceIndex> <leafHash> <key>");
    return new MessageEntry(
        seq,
        Decimal.parse("messageId", f[3]),
        f[4],
        Decimal.parse("deviceIndex", f[5]),
        f[6],
        IdempotencyKey.parse(f[7]));
  }

  private static TombstoneEntry tombstone(long seq, String[] f) {
    checkFields(f, 4, "v1 <seq> T <reason>");
    return new TombstoneEntry(seq, f[3]);
  }

  private static void checkFields(String[] f, int want, String form) {
    if (f.length != want) {
      throw new IllegalArgumentException(
          "room log entry: got " + f.length + " fields, want " + want + " (" + form + ")");
    }
  }
}
