package dev.danmakuledger.edge.capture;

/**
 * The idempotency key was captured before with different content (IETF idempotency-key draft: 422).
 * Nothing was stored; {@code original} is the ack of the record the key belongs to.
 */
public final class IdempotencyConflictException extends Exception {
  private static final long serialVersionUID = 1L;
  private final transient CaptureAck original;

  IdempotencyConflictException(
      CaptureAck original, String storedContentHash, String newContentHash) {
    super(
        "idempotency key "
            + original.idempotencyKey()
            + " was already used for a different message (log index "
            + original.index()
            + ", content hash "
            + storedContentHash
            + "); got content hash "
            + newContentHash
            + ". Use a fresh key for a new message, or resend exactly the original content");
    this.original = original;
  }

  public CaptureAck original() {
    return original;
  }
}
