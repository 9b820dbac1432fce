package dev.danmakuledger.protocol.wire;

import java.util.List;

/**
 * A page of room messages in sequence order.
 *
 * @param messages the messages
 * @param next the sequence number to ask for next
 */
public record RoomPage(List<RoomMessage> messages, long next) {
  /** Checks that required members are present and counts are not negative. */
  public RoomPage {
    messages = Checks.list("messages", messages);
    Checks.nonNegative("next", next);
  }
}
