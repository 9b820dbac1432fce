package dev.danmakuledger.lua;

import java.util.Objects;

/**
 * The admit script's answer for one item (docs/architecture.md §5, check 2).
 *
 * <p>For {@link Status#NEW} the seq was taken now and {@code messageId} is the item's candidate id.
 * For {@link Status#DUPLICATE} and {@link Status#CONFLICT} both are the ORIGINAL values stored by
 * the first admission of the key.
 *
 * @param status what the key was
 * @param seq the room sequence number, {@code >= 1}
 * @param messageId the message id, {@code >= 0}
 */
public record Admission(Status status, long seq, long messageId) {

  /** What the idempotency key was when the script saw it. */
  public enum Status {
    /** Not seen before: stored now with a fresh seq. */
    NEW,
    /** Seen before with the same content hash. */
    DUPLICATE,
    /** Seen before with a different content hash. */
    CONFLICT
  }

  public Admission {
    Objects.requireNonNull(status, "status");
    if (seq < 1) {
      throw new IllegalArgumentException("seq: got " + seq + ", want >= 1");
    }
    if (messageId < 0) {
      throw new IllegalArgumentException("messageId: got " + messageId + ", want >= 0");
    }
  }

  /**
   * True when this is a DUPLICATE whose original is {@code item}'s own earlier admission: the
   * stored message id is the item's candidate id. That happens when an admit is re-run after an
   * ambiguous failure (the first attempt ran but its reply was lost); the caller must treat it
   * exactly like {@link Status#NEW}.
   */
  public boolean isReplayOf(AdmitItem item) {
    return status == Status.DUPLICATE && messageId == item.candidateMessageId();
  }
}
