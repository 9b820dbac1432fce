package dev.danmakuledger.merkle.checkpoint;

import static dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason.MALFORMED;
import static dev.danmakuledger.merkle.checkpoint.NoteVerificationException.Reason.WRONG_ORIGIN;

import java.nio.ByteBuffer;

/**
 * Opens checkpoints cosigned per C2SP tlog-cosignature {@code cosignature/v1}. A cosignature is the
 * cosigner's statement that, at its timestamp, this was the largest consistent checkpoint it had
 * seen for the origin; the room log's checkpoints carry one from the server next to the log
 * signature (see {@code docs/room-log.md}).
 */
public final class Cosignatures {
  private static final String HEADER = "cosignature/v1\n";

  private Cosignatures() {}

  /** A verified cosigned checkpoint and the cosignature's POSIX timestamp in seconds. */
  public record Cosigned(Checkpoint checkpoint, long timestamp) {}

  /**
   * Returns the message a {@code cosignature/v1} signature signs: {@code cosignature/v1\n}, {@code
   * time <timestamp>\n} (decimal, no leading zeros), then the whole note text.
   */
  public static String message(String text, long timestamp) {
    return HEADER + "time " + Long.toUnsignedString(timestamp) + "\n" + text;
  }

  /**
   * Verifies the cosignature of {@code verifier} on {@code note}, then parses the checkpoint body
   * and checks its origin.
   *
   * @throws NoteVerificationException MALFORMED for a malformed note or body, UNKNOWN_KEY if no
   *     line carries the cosigner's name and 0x04 key ID, BAD_SIGNATURE if it does not verify,
   *     WRONG_ORIGIN if the checkpoint is for another log
   */
  public static Cosigned open(String note, String expectedOrigin, CosignatureVerifier verifier)
      throws NoteVerificationException {
    Cosigned c = open(note, verifier);
    if (!c.checkpoint().origin().equals(expectedOrigin)) {
      throw new NoteVerificationException(
          WRONG_ORIGIN,
          "origin: got \"" + c.checkpoint().origin() + "\", want \"" + expectedOrigin + "\"");
    }
    return c;
  }

  /**
   * Verifies the cosignature of {@code verifier} on {@code note}, then parses the checkpoint body;
   * the caller must check that the origin is the log it expects.
   *
   * @throws NoteVerificationException as {@link #open(String, String, CosignatureVerifier)}, but
   *     never WRONG_ORIGIN
   */
  public static Cosigned open(String note, CosignatureVerifier verifier)
      throws NoteVerificationException {
    SignedNote.Opened opened =
        SignedNote.openWith(note, verifier.name(), verifier.keyHash(), verifier::verify);
    Checkpoint cp;
    try {
      cp = Checkpoint.parse(opened.text());
    } catch (IllegalArgumentException e) {
      throw new NoteVerificationException(MALFORMED, e.getMessage());
    }
    return new Cosigned(cp, ByteBuffer.wrap(opened.signature()).getLong());
  }

  /**
   * Returns the timestamp of a {@code cosignature/v1} signature line's base64 blob (key ID,
   * timestamp, signature) without verifying it, e.g. to show it before a key is known.
   *
   * @throws IllegalArgumentException unless the blob is 4 + 8 + 64 bytes with a timestamp below
   *     2^63
   */
  public static long unverifiedTimestamp(String base64) {
    byte[] blob = Keys.decodeBase64(base64);
    if (blob == null || blob.length != 4 + CosignatureVerifier.SIGNATURE_SIZE) {
      throw new IllegalArgumentException(
          "cosignature: want base64 of " + (4 + CosignatureVerifier.SIGNATURE_SIZE) + " bytes");
    }
    long t = ByteBuffer.wrap(blob, 4, 8).getLong();
    if (t < 0) {
      throw new IllegalArgumentException("cosignature timestamp: above 2^63 - 1");
    }
    return t;
  }
}
