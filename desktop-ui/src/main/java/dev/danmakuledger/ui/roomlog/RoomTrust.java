package dev.danmakuledger.ui.roomlog;

/**
 * The last checkpoint of a room log the console verified: every later checkpoint must be an
 * extension of it (RFC 9162 §2.1.4 consistency).
 *
 * @param size tree size
 * @param rootHex root hash, lowercase hex
 * @param note the signed checkpoint note as served
 * @param firstSeen ISO-8601 time the console first verified this size and root
 * @param logKey the server's log verifier key (C2SP vkey) the note was verified with, or null in a
 *     history written before the console kept it
 */
record RoomTrust(long size, String rootHex, String note, String firstSeen, String logKey) {
  public RoomTrust {
    if (size < 0
        || rootHex == null
        || rootHex.length() != 64
        || note == null
        || firstSeen == null) {
      throw new IllegalArgumentException(
          "room trust: got size " + size + ", root " + rootHex + ", want size >= 0, 64 hex digits");
    }
  }
}
