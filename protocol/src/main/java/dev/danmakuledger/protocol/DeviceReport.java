package dev.danmakuledger.protocol;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import java.util.Base64;
import java.util.Objects;

/**
 * What a device reports with a batch besides its records (counters, clock, queue state), as a C2SP
 * signed note by the device's key (docs/sync.md, "Signed reports"). The note's text binds the
 * report to its batch (device, {@code oldSize}, the checkpoint's size and root) and numbers it; the
 * wire carries the members as JSON and only the signature, and the verifier rebuilds the text from
 * them, so there is no second parser. The first line keeps the text apart from the device's
 * checkpoints, which the same key signs and whose first line is the log's origin.
 */
public final class DeviceReport {
  /** First line of every report text. */
  public static final String HEADER = "danmaku-ledger/device-report/v1";

  private static final String NONE = "-";

  private DeviceReport() {}

  /**
   * The report text of {@code m} for the batch of {@code deviceId} from {@code oldSize} ending at
   * {@code checkpoint}.
   *
   * @throws IllegalArgumentException if {@code m} has no report number or the device id is
   *     malformed
   */
  public static String text(String deviceId, long oldSize, Checkpoint checkpoint, BatchMetadata m) {
    DeviceLog.origin(deviceId);
    if (m.reportSeq() == null) {
      throw new IllegalArgumentException("reportSeq: got null, want the report's number");
    }
    SyncAttempt last = m.lastAttempt();
    return HEADER
        + '\n'
        + deviceId
        + '\n'
        + oldSize
        + ' '
        + checkpoint.size()
        + ' '
        + Base64.getEncoder().encodeToString(checkpoint.root())
        + '\n'
        + m.reportSeq()
        + '\n'
        + orNone(m.deviceClockMillis())
        + '\n'
        + m.bloomChecks()
        + ' '
        + m.bloomMaybe()
        + ' '
        + m.edgeDuplicates()
        + ' '
        + m.bloomFalsePositives()
        + '\n'
        + orNone(m.oldestUnsyncedMillis())
        + '\n'
        + (last == null ? NONE + ' ' + NONE : last.atMillis() + " " + last.outcome())
        + '\n';
  }

  /**
   * {@code m}, numbered {@code reportSeq}, with the device's signature over its report text.
   *
   * @param signer the device's checkpoint key (named by the device log's origin)
   */
  public static BatchMetadata sign(
      NoteSigner signer,
      String deviceId,
      long oldSize,
      Checkpoint checkpoint,
      BatchMetadata m,
      long reportSeq) {
    BatchMetadata numbered = m.numbered(reportSeq);
    String note = SignedNote.sign(text(deviceId, oldSize, checkpoint, numbered), signer);
    int at = note.lastIndexOf(' ');
    return numbered.signedWith(note.substring(at + 1, note.length() - 1));
  }

  /**
   * True when {@code m} carries a signature by {@code deviceKey} over its report text for this
   * batch; false when it carries none or one that does not verify.
   *
   * @param deviceKey the device's enrolled Ed25519 public key (32 bytes)
   */
  public static boolean verifies(
      String deviceId, byte[] deviceKey, long oldSize, Checkpoint checkpoint, BatchMetadata m) {
    Objects.requireNonNull(m, "m");
    if (m.signature() == null) {
      return false;
    }
    String origin = DeviceLog.origin(deviceId);
    String note =
        text(deviceId, oldSize, checkpoint, m) + "\n\u2014 " + origin + ' ' + m.signature() + '\n';
    try {
      SignedNote.open(note, NoteVerifier.ofEd25519(origin, deviceKey));
      return true;
    } catch (NoteVerificationException e) {
      return false;
    }
  }

  private static String orNone(Long v) {
    return v == null ? NONE : v.toString();
  }
}
