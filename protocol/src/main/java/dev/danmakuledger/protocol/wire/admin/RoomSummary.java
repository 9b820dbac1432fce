package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;

/**
 * One room as the console lists it.
 *
 * @param room the room
 * @param highSeq the highest sequence number handed out
 * @param tombstones sequence numbers burned without a message
 * @param confirmed confirmed messages
 * @param pending messages awaiting review
 * @param rejected rejected messages
 * @param messagesPerMinute recent message rate
 */
public record RoomSummary(
    String room,
    long highSeq,
    long tombstones,
    long confirmed,
    long pending,
    long rejected,
    double messagesPerMinute) {
  /** Checks that required members are present and counts are not negative. */
  public RoomSummary {
    Checks.required("room", room);
    Checks.nonNegative("highSeq", highSeq);
    Checks.nonNegative("tombstones", tombstones);
    Checks.nonNegative("confirmed", confirmed);
    Checks.nonNegative("pending", pending);
    Checks.nonNegative("rejected", rejected);
  }
}
