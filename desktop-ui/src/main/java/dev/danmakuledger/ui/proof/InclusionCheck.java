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
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.record.InvalidRecordException;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.DeviceKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Verifies in the console, without trusting the server, that a message is in its device's log as
 * the DEVICE signed it (docs/architecture.md §3, RFC 9162 §2.1.3.2): the checkpoint note must carry
 * a valid Ed25519 signature of the device's enrolled key for the device's origin (C2SP signed-note,
 * tlog-checkpoint); the leaf's canonical record bytes (docs/canonical-record.md) sent with the
 * proof must decode, and the console recomputes the leaf hash from them ({@link
 * DanmakuRecord#leafHash()}); the inclusion proof must lead from that leaf hash to exactly the
 * signed root; and the message the server shows must say what the decoded record says, field by
 * field.
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
    byte[] claimedLeaf;
    List<byte[]> path = new ArrayList<>();
    try {
      claimedLeaf = HEX.parseHex(proof.leafHashHex());
      for (String h : proof.proofHex()) {
        path.add(HEX.parseHex(h));
      }
    } catch (IllegalArgumentException | NullPointerException e) {
      return Verdict.failed("The proof is malformed: its hashes are not hex.", facts);
    }
    if (proof.canonical() == null) {
      return Verdict.failed(
          "The server did not send the record the device signed, so the console cannot recompute"
              + " its leaf hash; update the server.",
          facts);
    }
    DanmakuRecord signed;
    try {
      signed = CanonicalRecord.decode(proof.canonicalBytes());
    } catch (InvalidRecordException e) {
      return Verdict.failed(
          "The record the server sent is not a valid canonical record (field "
              + e.field()
              + "): "
              + e.getMessage(),
          facts);
    } catch (IllegalArgumentException e) {
      return Verdict.failed(
          "The record the server sent is not a valid canonical record: " + e.getMessage(), facts);
    }
    byte[] leaf = signed.leafHash();
    facts.add("leaf hash recomputed from the record: " + HEX.formatHex(leaf));
    if (!Arrays.equals(leaf, claimedLeaf)) {
      facts.add("leaf hash the proof is for: " + HEX.formatHex(claimedLeaf));
      return Verdict.failed(
          "The record the server sent does not hash to the leaf its proof is for: the server's"
              + " copy of this record differs from the one in the device log.",
          facts);
    }
    facts.add(path.size() + (path.size() == 1 ? " proof hash" : " proof hashes"));
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
    List<String> differences = differences(message, signed);
    if (!differences.isEmpty()) {
      facts.addAll(differences);
      return Verdict.failed(
          "The server's copy of this message differs from what the device signed: "
              + differences.get(0)
              + (differences.size() > 1
                  ? " (and " + (differences.size() - 1) + " more, below)."
                  : "."),
          facts);
    }
    facts.add("the message matches the signed record field by field");
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

  /** Each field where the server's message and the device-signed record disagree, in words. */
  private static List<String> differences(RoomMessage shown, DanmakuRecord signed) {
    List<String> out = new ArrayList<>();
    compare(out, "room", shown.room(), signed.room());
    compare(out, "user", shown.user(), signed.user());
    compare(out, "text", shown.text(), signed.text());
    compare(out, "idempotency key", shown.idempotencyKey(), signed.key().toString());
    compare(out, "device", shown.deviceId(), signed.deviceId());
    compare(out, "device index", shown.deviceIndex(), signed.index());
    compare(out, "playback time (ms)", shown.playbackMs(), signed.playbackMs());
    compare(out, "mode", shown.mode(), signed.mode());
    compare(out, "colour", hexColor(shown.color()), hexColor(signed.color()));
    compare(out, "font size", shown.fontSize(), signed.fontSize());
    return out;
  }

  private static void compare(List<String> out, String field, Object shown, Object signed) {
    if (!Objects.equals(shown, signed)) {
      out.add(
          "server shows " + field + " " + quote(shown) + " but the device signed " + quote(signed));
    }
  }

  private static String quote(Object value) {
    if (value == null) {
      return "nothing";
    }
    return value instanceof String ? "\u201c" + value + "\u201d" : value.toString();
  }

  private static String hexColor(int rgb) {
    return String.format("#%06x", rgb);
  }

  private static String hex8(int keyHash) {
    return String.format("%08x", keyHash);
  }
}
