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
 * @param relay how far the Kafka relay is behind in the room (docs/kafka.md, "Lag"); null without a
 *     relay or while the room's shard has no running owner
 */
public record RoomSummary(
    String room,
    long highSeq,
    long tombstones,
    long confirmed,
    long pending,
    long rejected,
    double messagesPerMinute,
    Relay relay) {
  /** Checks that required members are present and counts are not negative. */
  public RoomSummary {
    Checks.required("room", room);
    Checks.nonNegative("highSeq", highSeq);
    Checks.nonNegative("tombstones", tombstones);
    Checks.nonNegative("confirmed", confirmed);
    Checks.nonNegative("pending", pending);
    Checks.nonNegative("rejected", rejected);
  }

  /** A room without a Kafka relay lag. */
  public RoomSummary(
      String room,
      long highSeq,
      long tombstones,
      long confirmed,
      long pending,
      long rejected,
      double messagesPerMinute) {
    this(room, highSeq, tombstones, confirmed, pending, rejected, messagesPerMinute, null);
  }

  /**
   * How far the Kafka relay is behind in one room.
   *
   * @param behind confirmed messages of the room not yet in the topic
   * @param lagMillis how long the relay has seen the room behind, 0 when it is not
   */
  public record Relay(long behind, long lagMillis) {
    /** Checks that counts are not negative. */
    public Relay {
      Checks.nonNegative("behind", behind);
      Checks.nonNegative("lagMillis", lagMillis);
    }
  }
}
