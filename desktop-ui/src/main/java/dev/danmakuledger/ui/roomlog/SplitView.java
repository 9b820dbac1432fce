package dev.danmakuledger.ui.roomlog;

/**
 * Evidence that the server showed two views of one room log: a checkpoint signed with its log key
 * that is not an extension of one the console verified earlier. Kept until an operator deals with
 * it outside the console: both signed notes together prove the server misbehaved.
 *
 * @param room the room
 * @param trusted the checkpoint verified before
 * @param seenSize size of the conflicting checkpoint
 * @param seenRootHex its root
 * @param seenNote its signed note
 * @param detectedAt ISO-8601 time of detection
 * @param why what did not hold
 */
public record SplitView(
    String room,
    RoomTrust trusted,
    long seenSize,
    String seenRootHex,
    String seenNote,
    String detectedAt,
    String why) {
  public SplitView {
    if (room == null || trusted == null || seenNote == null || detectedAt == null || why == null) {
      throw new IllegalArgumentException("split view: got a null member, want all set");
    }
  }
}
