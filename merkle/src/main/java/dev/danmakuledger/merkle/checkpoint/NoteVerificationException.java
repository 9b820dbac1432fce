package dev.danmakuledger.merkle.checkpoint;

import dev.danmakuledger.merkle.VerificationException;

/** A signed note or checkpoint was rejected; {@link #reason()} says why. */
public final class NoteVerificationException extends VerificationException {
  private static final long serialVersionUID = 1L;

  /** Why a note was rejected. */
  public enum Reason {
    /** The note or its body does not follow C2SP signed-note / tlog-checkpoint syntax. */
    MALFORMED,
    /** No signature line names the trusted key (name and key hash). */
    UNKNOWN_KEY,
    /** The trusted key's signature is present but does not verify. */
    BAD_SIGNATURE,
    /** The checkpoint is for a different log. */
    WRONG_ORIGIN
  }

  private final Reason reason;

  public NoteVerificationException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** Returns the category of the failure. */
  public Reason reason() {
    return reason;
  }
}
