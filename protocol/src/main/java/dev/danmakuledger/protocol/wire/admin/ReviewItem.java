package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;

/**
 * A message held for review, {@code GET /admin/review}.
 *
 * @param messageId the message id in decimal
 * @param room the room
 * @param seq the room sequence number
 * @param idempotencyKey the idempotency key
 * @param deviceId the capturing device
 * @param user the posting user
 * @param text the text
 * @param color RGB colour
 * @param version the row version to pass back in a {@link ReviewDecision}
 */
public record ReviewItem(
    String messageId,
    String room,
    long seq,
    String idempotencyKey,
    String deviceId,
    String user,
    String text,
    int color,
    long version) {
  /** Checks that required members are present and counts are not negative. */
  public ReviewItem {
    Checks.required("messageId", messageId);
    Checks.required("room", room);
    Checks.nonNegative("seq", seq);
    Checks.required("idempotencyKey", idempotencyKey);
    Checks.required("deviceId", deviceId);
    Checks.required("user", user);
    Checks.required("text", text);
    Checks.nonNegative("version", version);
  }
}
