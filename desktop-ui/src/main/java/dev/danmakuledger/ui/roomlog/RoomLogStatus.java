package dev.danmakuledger.ui.roomlog;

/** What the console's last audit of a room log found. */
public enum RoomLogStatus {
  /** Not audited yet. */
  CHECKING,
  /** Signed by the server's log key, root recomputed from the tiles, consistent with the last. */
  VERIFIED,
  /** The checkpoint is not an extension of the last one verified: two views of one log. */
  SPLIT_VIEW,
  /** The checkpoint does not verify with the server's log key, or is not this room's. */
  BAD_SIGNATURE,
  /** The tiles are missing, malformed or lead to another root than the checkpoint's. */
  BAD_TILES,
  /** The server or its keys could not be read; nothing is known either way. */
  UNAVAILABLE
}
