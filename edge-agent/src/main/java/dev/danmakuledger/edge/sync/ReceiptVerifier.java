package dev.danmakuledger.edge.sync;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureVerifier;
import dev.danmakuledger.merkle.checkpoint.Cosignatures;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import java.util.Objects;

/**
 * Checks a server receipt on this device's checkpoint (docs/sync.md, "Receipts"): the note must
 * carry the device's own signature, and the server's C2SP tlog-cosignature {@code cosignature/v1}
 * line by its cosigner key — or, for receipts issued before cosigned receipts (and for agents that
 * enrolled before the server had a cosigner key), the server's Ed25519 note signature (type 0x01)
 * by the key received at enrolment.
 */
public final class ReceiptVerifier {
  private final NoteVerifier legacy;
  private final CosignatureVerifier cosigner;

  private ReceiptVerifier(NoteVerifier legacy, CosignatureVerifier cosigner) {
    this.legacy = Objects.requireNonNull(legacy, "legacy");
    this.cosigner = cosigner;
  }

  /** Accepts cosignatures by {@code cosigner} and note signatures by {@code legacy}. */
  public static ReceiptVerifier of(NoteVerifier legacy, CosignatureVerifier cosigner) {
    return new ReceiptVerifier(legacy, Objects.requireNonNull(cosigner, "cosigner"));
  }

  /** Accepts only note signatures by {@code legacy} (no cosigner key known). */
  public static ReceiptVerifier legacyOnly(NoteVerifier legacy) {
    return new ReceiptVerifier(legacy, null);
  }

  /** Whether a cosigner key is known, so cosigned receipts are checked as such. */
  public boolean knowsCosigner() {
    return cosigner != null;
  }

  /** The ID ({@code name+hash}) of the cosigner key receipts are checked with, or null. */
  public String cosignerKeyId() {
    return cosigner == null ? null : cosigner.keyId();
  }

  /**
   * Verifies {@code receipt} and returns its checkpoint.
   *
   * @param origin the device log origin
   * @param device the device's own verifier
   * @throws NoteVerificationException if the device signature, or both server signatures, fail
   */
  public Checkpoint verify(String receipt, String origin, NoteVerifier device)
      throws NoteVerificationException {
    Checkpoint cp = Checkpoints.open(receipt, origin, device);
    if (cosigner != null) {
      try {
        Cosignatures.open(receipt, origin, cosigner);
        return cp;
      } catch (NoteVerificationException e) {
        try {
          SignedNote.open(receipt, legacy);
          return cp;
        } catch (NoteVerificationException legacyFailed) {
          e.addSuppressed(legacyFailed);
          throw e;
        }
      }
    }
    SignedNote.open(receipt, legacy);
    return cp;
  }
}
