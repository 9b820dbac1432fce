package dev.danmakuledger.protocol.room;

import dev.danmakuledger.protocol.Quote;
import dev.danmakuledger.protocol.record.DanmakuRecord;

/**
 * Names and numbering of a room's transparency log ({@code docs/room-log.md}): the C2SP
 * tlog-checkpoint origin {@code danmaku-ledger/room/<room>}, the C2SP tlog-tiles prefix {@code
 * /v1/rooms/<room>/log/}, and the rule that leaf {@code i} (0-based) is room sequence number {@code
 * i + 1}.
 */
public final class RoomLog {
  /** Prefix of every room log origin. */
  public static final String ORIGIN_PREFIX = "danmaku-ledger/room/";

  private RoomLog() {}

  /**
   * Returns the checkpoint origin of a room's log.
   *
   * @throws IllegalArgumentException unless {@code room} is a valid room name
   */
  public static String origin(String room) {
    return ORIGIN_PREFIX + checkRoom(room);
  }

  /**
   * Returns the URL path prefix under which the room's checkpoint, tiles and entry bundles are
   * served: {@code /v1/rooms/<room>/log/} (so the checkpoint is {@code .../log/checkpoint}).
   *
   * @throws IllegalArgumentException unless {@code room} is a valid room name
   */
  public static String tilesPrefix(String room) {
    return "/v1/rooms/" + checkRoom(room) + "/log/";
  }

  /**
   * Returns the room sequence number of leaf {@code leafIndex}: {@code leafIndex + 1}.
   *
   * @throws IllegalArgumentException unless {@code 0 <= leafIndex < 2^63 - 1}
   */
  public static long seqOfLeaf(long leafIndex) {
    if (leafIndex < 0 || leafIndex == Long.MAX_VALUE) {
      throw new IllegalArgumentException(
          "leaf index: got " + leafIndex + ", want 0.." + (Long.MAX_VALUE - 1));
    }
    return leafIndex + 1;
  }

  /**
   * Returns the leaf index of room sequence number {@code seq}: {@code seq - 1}.
   *
   * @throws IllegalArgumentException unless {@code seq >= 1}
   */
  public static long leafOfSeq(long seq) {
    if (seq < 1) {
      throw new IllegalArgumentException("seq: got " + seq + ", want >= 1");
    }
    return seq - 1;
  }

  private static String checkRoom(String room) {
    if (!DanmakuRecord.isValidRoom(room)) {
      throw new IllegalArgumentException(
          "room: got " + Quote.of(room) + ", want 1 to 64 of [A-Za-z0-9_.-]");
    }
    return room;
  }
}
