package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.tiles.EntryCheck;
import dev.danmakuledger.merkle.tiles.TileException;
import java.nio.charset.StandardCharsets;

/**
 * The room-log rule {@code tlog verify-room} applies to every entry (docs/room-log.md): leaf {@code
 * i} is a version-1 entry numbered {@code i + 1}, of type {@code M} (8 fields) or {@code T} (4
 * fields), printable ASCII separated by single spaces. The merkle module may not depend on the
 * protocol module, whose {@code RoomLogEntry} parser is the full definition of the format; this is
 * the minimal form of it that proves the numbering: every sequence number present exactly once, in
 * order, each a message or a tombstone.
 */
final class RoomEntryNumbering implements EntryCheck {
  private long messages;
  private long tombstones;

  @Override
  public void check(long leafIndex, byte[] entry) throws TileException {
    String where = "entry " + leafIndex + " (seq " + (leafIndex + 1) + ")";
    for (byte b : entry) {
      if (b < 0x20 || b > 0x7e) {
        throw new TileException(where + ": not printable ASCII");
      }
    }
    String text = new String(entry, StandardCharsets.US_ASCII);
    String[] f = text.split(" ", -1);
    for (String field : f) {
      if (field.isEmpty()) {
        throw new TileException(where + ": fields must be separated by single spaces");
      }
    }
    if (f.length < 3 || !f[0].equals("v1")) {
      throw new TileException(where + ": want \"v1 <seq> <type> ...\", got " + shown(text));
    }
    if (!f[1].equals(Long.toString(leafIndex + 1))) {
      throw new TileException(
          where
              + ": got seq "
              + shown(f[1])
              + ", want "
              + (leafIndex + 1)
              + " (leaf i is seq i+1)");
    }
    if (f[2].equals("M") && f.length == 8) {
      messages++;
    } else if (f[2].equals("T") && f.length == 4) {
      tombstones++;
    } else {
      throw new TileException(
          where + ": want type M with 8 fields or T with 4 fields, got " + shown(text));
    }
  }

  long messages() {
    return messages;
  }

  long tombstones() {
    return tombstones;
  }

  private static String shown(String s) {
    return "\"" + (s.length() <= 60 ? s : s.substring(0, 60) + "...") + "\"";
  }
}
