package dev.danmakuledger.protocol.room;

import dev.danmakuledger.merkle.tiles.EntryCheck;
import dev.danmakuledger.merkle.tiles.TileException;

/**
 * The full room-log entry rule for {@link dev.danmakuledger.merkle.tiles.LogAudit}: leaf {@code i}
 * must parse strictly as a {@link RoomLogEntry} numbered {@code i + 1} (docs/room-log.md). It is
 * stricter than the numbering check of {@code tlog verify-room}, which cannot use this parser
 * because the merkle module depends on nothing in the project. Counts what it saw; not thread-safe.
 */
final class RoomLogCheck implements EntryCheck {
  private long messages;
  private long tombstones;

  @Override
  public void check(long leafIndex, byte[] entry) throws TileException {
    RoomLogEntry e;
    try {
      e = RoomLogEntry.parse(entry);
    } catch (IllegalArgumentException ex) {
      throw new TileException("entry " + leafIndex + ": " + ex.getMessage());
    }
    long want = RoomLog.seqOfLeaf(leafIndex);
    if (e.seq() != want) {
      throw new TileException(
          "entry "
              + leafIndex
              + ": got seq "
              + e.seq()
              + ", want "
              + want
              + " (leaf i is seq i+1)");
    }
    if (e instanceof MessageEntry) {
      messages++;
    } else {
      tombstones++;
    }
  }

  /** Number of message entries checked so far. */
  public long messages() {
    return messages;
  }

  /** Number of tombstone entries checked so far. */
  public long tombstones() {
    return tombstones;
  }
}
