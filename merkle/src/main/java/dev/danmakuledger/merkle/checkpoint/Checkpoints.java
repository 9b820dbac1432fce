package dev.danmakuledger.merkle.checkpoint;

import static dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason.MALFORMED;
import static dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason.WRONG_ORIGIN;

/**
 * Signs and opens C2SP tlog-checkpoint notes. Opening verifies the signature before the body is
 * parsed, so unauthenticated text never reaches the checkpoint parser.
 */
public final class Checkpoints {
  private Checkpoints() {}

  /** Returns {@code cp}'s body signed by {@code signer} as a signed note. */
  public static String sign(Checkpoint cp, NoteSigner signer) {
    return SignedNote.sign(cp.body(), signer);
  }

  /**
   * Verifies {@code note} with {@code verifier}, then parses its checkpoint body and checks the
   * origin.
   *
   * @throws NoteVerificationException if the note or signature is rejected (see {@link
   *     SignedNote#open}), the body is malformed (MALFORMED) or names another origin (WRONG_ORIGIN)
   */
  public static Checkpoint open(String note, String expectedOrigin, NoteVerifier verifier)
      throws NoteVerificationException {
    String text = SignedNote.open(note, verifier);
    Checkpoint cp;
    try {
      cp = Checkpoint.parse(text);
    } catch (IllegalArgumentException e) {
      throw new NoteVerificationException(MALFORMED, e.getMessage());
    }
    if (!cp.origin().equals(expectedOrigin)) {
      throw new NoteVerificationException(
          WRONG_ORIGIN, "origin: got \"" + cp.origin() + "\", want \"" + expectedOrigin + "\"");
    }
    return cp;
  }
}
