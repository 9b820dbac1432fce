package dev.danmakuledger.ui.proof;

import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.merkle.proof.InvalidProofException;
import dev.danmakuledger.merkle.proof.RootMismatchException;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.DeviceKey;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Verifies in the console, without trusting the server, that a message's leaf is in its device's
 * log as the DEVICE signed it (ARCHITECTURE §3, RFC 9162 §2.1.3.2): the checkpoint note must carry
 * a valid Ed25519 signature of the device's enrolled key for the device's origin (C2SP signed-note,
 * tlog-checkpoint), and the server's inclusion proof must lead from the leaf hash to exactly the
 * signed root. The leaf hash is the one the server reports for the message.
 */
public final class InclusionCheck {
  private static final HexFormat HEX = HexFormat.of();

  private InclusionCheck() {}

  /**
   * Checks {@code proof} for {@code message} against the device's signed {@code log} checkpoint and
   * enrolled {@code key}. Never throws for bad evidence: every failure is a red verdict.
   */
  public static Verdict verify(
      RoomMessage message, LogState log, InclusionProofResponse proof, DeviceKey key) {
    String deviceId = message.deviceId();
    Long index = message.deviceIndex();
    List<String> facts = new ArrayList<>();
    if (index == null) {
      return Verdict.failed(
          "This message has no position in a device log, so there is nothing to prove.", facts);
    }
    facts.add("device " + deviceId + ", log index " + index);
    if (!deviceId.equals(proof.deviceId()) || index != proof.index()) {
      return Verdict.failed(
          "The server sent a proof for another leaf: got "
              + proof.deviceId()
              + " #"
              + proof.index()
              + ", want "
              + deviceId
              + " #"
              + index
              + ".",
          facts);
    }
    if (!deviceId.equals(key.deviceId())) {
      return Verdict.failed(
          "The server sent the key of another device: got "
              + key.deviceId()
              + ", want "
              + deviceId
              + ".",
          facts);
    }
    NoteVerifier verifier;
    try {
      verifier = NoteVerifier.parse(key.verifierKey());
    } catch (IllegalArgumentException e) {
      return Verdict.failed(
          "The device's enrolled key is unreadable, so its checkpoint cannot be checked: "
              + e.getMessage(),
          facts);
    }
    facts.add("enrolled key " + verifier.name() + " (hash " + hex8(verifier.keyHash()) + ")");
    Checkpoint checkpoint;
    try {
      checkpoint = Checkpoints.open(log.checkpoint(), DeviceLog.origin(deviceId), verifier);
    } catch (NoteVerificationException e) {
      return Verdict.failed(
          "The device's checkpoint is not signed by its enrolled key: " + e.getMessage(), facts);
    } catch (RuntimeException e) {
      return Verdict.failed("The device's checkpoint is unreadable: " + e.getMessage(), facts);
    }
    facts.add(
        "signed checkpoint: size "
            + checkpoint.size()
            + ", root "
            + HEX.formatHex(checkpoint.root()));
    if (proof.size() != checkpoint.size()) {
      return Verdict.failed(
          "The proof is for a log of size "
              + proof.size()
              + " but the device signed size "
              + checkpoint.size()
              + "; look it up again.",
          facts);
    }
    byte[] leaf;
    List<byte[]> path = new ArrayList<>();
    try {
      leaf = HEX.parseHex(proof.leafHashHex());
      for (String h : proof.proofHex()) {
        path.add(HEX.parseHex(h));
      }
    } catch (IllegalArgumentException | NullPointerException e) {
      return Verdict.failed("The proof is malformed: its hashes are not hex.", facts);
    }
    facts.add("leaf hash " + HEX.formatHex(leaf) + ", " + path.size() + " proof hashes");
    try {
      InclusionProof.verify(index, checkpoint.size(), leaf, path, checkpoint.root());
    } catch (RootMismatchException e) {
      facts.add("root computed from the proof: " + HEX.formatHex(e.computed()));
      return Verdict.failed(
          "The proof does not lead to the root the device signed: the server's copy of this"
              + " message or of the device log differs from what the device captured.",
          facts);
    } catch (InvalidProofException e) {
      return Verdict.failed("The proof is malformed: " + e.getMessage(), facts);
    } catch (VerificationException e) {
      return Verdict.failed("The proof does not verify: " + e.getMessage(), facts);
    }
    return Verdict.ok(
        "Verified: leaf #"
            + index
            + " is in the log device "
            + deviceId
            + " signed at size "
            + checkpoint.size()
            + ".",
        facts);
  }

  private static String hex8(int keyHash) {
    return String.format("%08x", keyHash);
  }
}
