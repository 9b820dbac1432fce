package dev.danmakuledger.server.ingest;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.storage.Counter;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.MessageStatus;
import dev.danmakuledger.server.storage.ReviewStore;
import dev.danmakuledger.server.storage.VersionConflictException;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The review queue (docs/architecture.md §5, message state machine): PENDING → CONFIRMED | REJECTED
 * by compare-and-set on the version column. The transition, its counters and the confirmation
 * cursor of an approval commit together; the room broadcast and the operator event follow only
 * after that commit.
 */
public final class Review {
  /** Counter reason of operator rejections: free-text reasons are stored, not counted by name. */
  static final String OPERATOR = "operator";

  private final ReviewStore store;
  private final RoomHub rooms;
  private final AdminHub admin;
  private final Clock clock;

  public Review(ReviewStore store, RoomHub rooms, AdminHub admin, Clock clock) {
    this.store = store;
    this.rooms = rooms;
    this.admin = admin;
    this.clock = clock;
  }

  /**
   * Approves or rejects a pending message.
   *
   * @param reason why (at most the column size, checked at the HTTP boundary), or null
   * @throws LedgerException NOT_FOUND for an unknown id, VERSION_CONFLICT when the message is no
   *     longer PENDING at {@code version}
   */
  public MessageRow decide(long messageId, boolean approve, long version, String reason) {
    MessageStatus to = approve ? MessageStatus.CONFIRMED : MessageStatus.REJECTED;
    String why = approve ? null : (reason == null || reason.isBlank() ? OPERATOR : reason);
    Map<String, Long> counters = approve ? Map.of() : Map.of(Counter.rejectKey(OPERATOR), 1L);
    MessageRow row;
    try {
      row =
          store
              .decide(messageId, to, version, why, counters)
              .orElseThrow(
                  () ->
                      new LedgerException(ErrorCode.NOT_FOUND, "no message with id " + messageId));
    } catch (VersionConflictException e) {
      MessageRow now = e.current();
      throw new LedgerException(
          ErrorCode.VERSION_CONFLICT,
          "message "
              + messageId
              + " is "
              + now.status()
              + " at version "
              + now.version()
              + ", not PENDING at version "
              + version
              + "; reload the review queue",
          Map.of("currentStatus", now.status().name(), "currentVersion", now.version()));
    }
    if (approve) {
      rooms.publish(row.room(), List.of(row));
    }
    admin.publish(
        Events.of(
            AdminEvent.Type.MESSAGE,
            Severity.INFO,
            row.deviceId(),
            row.room(),
            "message " + messageId + " " + to,
            clock.millis(),
            Map.of("messageId", Long.toString(messageId), "status", to.name())));
    return row;
  }
}
