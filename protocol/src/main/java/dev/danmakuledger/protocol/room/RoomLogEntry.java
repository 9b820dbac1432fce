package dev.danmakuledger.protocol.room;

import java.nio.charset.StandardCharsets;

/**
 * One entry of a room log ({@code docs/room-log.md}): the bytes of leaf {@code seq - 1}, printable
 * ASCII fields separated by single spaces, no trailing newline, starting with the format version
 * {@code v1} and the room sequence number. A {@link MessageEntry} says which device record got the
 * number; a {@link TombstoneEntry} says why the number carries no message.
 */
public sealed interface RoomLogEntry permits MessageEntry, TombstoneEntry {
  /** Largest entry accepted by {@link #parse}, in bytes; v1 entries are far shorter. */
  int MAX_BYTES = 1024;

  /** The room sequence number, {@code >= 1}. */
  long seq();

  /** Returns the canonical text of the entry. */
  String text();

  /** Returns the canonical entry bytes, the UTF-8 (here: ASCII) encoding of {@link #text()}. */
  default byte[] encode() {
    return text().getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Parses entry bytes strictly: only the canonical encoding of a valid entry is accepted, so every
   * entry has exactly one byte form and one leaf hash.
   *
   * @throws IllegalArgumentException naming the first problem, with what was expected
   */
  static RoomLogEntry parse(byte[] bytes) {
    return EntryParser.parse(bytes);
  }
}
