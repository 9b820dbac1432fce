package dev.danmakuledger.edge.sync;

import java.io.IOException;

/**
 * A sync that cannot go on by itself: retrying would not help, or the device log and the server
 * disagree. Nothing local is deleted when this is thrown; the message says what to do next.
 */
public final class SyncStoppedException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Why the sync stopped. */
  public enum Reason {
    /** The server does not know this device (401): run {@code edge-agent enroll}. */
    NOT_ENROLLED,
    /** The server refused the device's credentials or checkpoint signature (403). */
    REFUSED,
    /** An operator quarantined the device (403 device-quarantined, or status QUARANTINED). */
    QUARANTINED,
    /**
     * The device log disagrees with what the server verified (fork, bad proof, other root at the
     * verified size): a cloned, rolled-back or tampered device.
     */
    FORK,
    /** The server has verified more of this log than the device holds (restored old backup). */
    SERVER_AHEAD,
    /** The server stayed unreachable or overloaded through every retry. */
    UNREACHABLE,
    /** The server's reply broke the protocol (wrong outcomes, receipt that does not verify). */
    PROTOCOL
  }

  private final Reason reason;

  public SyncStoppedException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public SyncStoppedException(Reason reason, String message) {
    this(reason, message, null);
  }

  public Reason reason() {
    return reason;
  }

  /** True when retrying later may succeed without anyone's intervention. */
  public boolean retryLater() {
    return reason == Reason.UNREACHABLE;
  }
}
