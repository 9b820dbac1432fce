package dev.danmakuledger.protocol.wire;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * One message of a room as stored by the server; also the answer of the message lookups of the
 * console inspector.
 *
 * @param room the room
 * @param seq the room sequence number
 * @param messageId the message id in decimal, or null for a tombstone
 * @param idempotencyKey the idempotency key, or null for a tombstone
 * @param deviceId the capturing device, or null for a tombstone
 * @param user the posting user, or null for a tombstone
 * @param text the text, or null for a tombstone
 * @param playbackMs position in the video in ms, or null
 * @param mode display mode 1..8 (0 for a tombstone)
 * @param color RGB colour
 * @param fontSize font size
 * @param status the state of the slot
 * @param deviceIndex the record's index in the device log, or null for a tombstone
 */
public record RoomMessage(
    String room,
    long seq,
    String messageId,
    String idempotencyKey,
    String deviceId,
    String user,
    String text,
    Long playbackMs,
    int mode,
    int color,
    int fontSize,
    Status status,
    Long deviceIndex) {
  /** Checks that required members are present and counts are not negative. */
  public RoomMessage {
    Checks.required("room", room);
    Checks.nonNegative("seq", seq);
    Checks.required("status", status);
  }

  /** The state of a room slot (docs/architecture.md §5: PENDING → CONFIRMED | REJECTED). */
  public enum Status {
    CONFIRMED,
    PENDING,
    REJECTED,
    /** A number that carries no message. */
    TOMBSTONE,
    /** A state this build does not know, sent by a newer server. */
    UNKNOWN;

    /** The constant named {@code name}; {@link #UNKNOWN} for a name this build does not know. */
    public static Status fromWire(String name) {
      return WireEnums.named(Status.class, name, UNKNOWN);
    }

    @JsonCreator
    static Status fromJson(JsonNode value) {
      return WireEnums.fromJson(Status.class, value, UNKNOWN);
    }
  }
}
