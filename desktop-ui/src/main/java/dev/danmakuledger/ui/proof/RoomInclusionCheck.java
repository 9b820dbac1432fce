package dev.danmakuledger.ui.proof;

import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.merkle.proof.RootMismatchException;
import dev.danmakuledger.protocol.room.AuditBundle;
import dev.danmakuledger.protocol.room.MessageEntry;
import dev.danmakuledger.protocol.room.RoomLog;
import dev.danmakuledger.protocol.room.RoomLogEntry;
import dev.danmakuledger.protocol.wire.RoomMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Verifies in the console, without trusting the server, that a message is entry {@code seq - 1} of
 * its room's log (docs/room-log.md, "Audit bundle"; RFC 9162 §2.1.3.2): the room checkpoint of the
 * message's audit bundle must be signed by the server's log key for the room's origin (C2SP
 * signed-note, tlog-checkpoint), the entry must parse as the v1 message entry of exactly this
 * message (seq, message id, device, index, key), its RFC 6962 leaf hash and the inclusion proof
 * must lead to the signed root, and the device record the entry points to must be the record of the
 * bundle, whose leaf hash the device-log check compares with the device's own log.
 */
public final class RoomInclusionCheck {
  private static final HexFormat HEX = HexFormat.of();

  private RoomInclusionCheck() {}

  /**
   * Checks {@code bundle} for {@code message} with the server's room-log verifier key {@code
   * logVerifierKey} (C2SP vkey). Never throws for bad evidence: every failure is a red verdict.
   *
   * @param deviceLeafHashHex the leaf hash of the message's record in its device log, as the device
   *     log proof names it, or null when there is none to compare with
   */
  public static RoomInclusion verify(
      RoomMessage message, AuditBundle bundle, String logVerifierKey, String deviceLeafHashHex) {
    long leaf = message.seq() - 1;
    List<String> facts = new ArrayList<>();
    facts.add("room " + message.room() + ", seq " + message.seq() + ", leaf index " + leaf);
    if (!message.room().equals(bundle.room()) || message.seq() != bundle.seq()) {
      return failed(
          "The server sent the bundle of another message: got "
              + bundle.room()
              + " #"
              + bundle.seq()
              + ", want "
              + message.room()
              + " #"
              + message.seq()
              + ".",
          facts,
          -1,
          leaf,
          "");
    }
    AuditBundle.Inclusion proof = bundle.roomInclusion();
    if (proof.index() != leaf) {
      return failed(
          "The room proof is for leaf " + proof.index() + ", want seq - 1 = " + leaf + ".",
          facts,
          proof.size(),
          leaf,
          "");
    }
    NoteVerifier verifier;
    try {
      verifier = NoteVerifier.parse(logVerifierKey);
    } catch (IllegalArgumentException e) {
      return failed(
          "The server's room log key is unreadable, so its checkpoint cannot be checked: "
              + e.getMessage(),
          facts,
          proof.size(),
          leaf,
          "");
    }
    Checkpoint cp;
    try {
      cp = Checkpoints.open(bundle.roomCheckpoint(), RoomLog.origin(message.room()), verifier);
    } catch (NoteVerificationException e) {
      return failed(
          "The room checkpoint is not signed by the server's log key "
              + verifier.name()
              + ": "
              + e.getMessage(),
          facts,
          proof.size(),
          leaf,
          "");
    } catch (RuntimeException e) {
      return failed(
          "The room checkpoint is unreadable: " + e.getMessage(), facts, proof.size(), leaf, "");
    }
    facts.add(
        "room checkpoint signed by "
            + verifier.name()
            + ": size "
            + cp.size()
            + ", root "
            + HEX.formatHex(cp.root()));
    if (proof.size() != cp.size()) {
      return failed(
          "The room proof is for a log of size "
              + proof.size()
              + " but the checkpoint has size "
              + cp.size()
              + ".",
          facts,
          cp.size(),
          leaf,
          "");
    }
    byte[] entryBytes;
    RoomLogEntry entry;
    try {
      entryBytes = Base64.getDecoder().decode(bundle.entry());
      entry = RoomLogEntry.parse(entryBytes);
    } catch (IllegalArgumentException e) {
      return failed(
          "The room log entry is not a v1 entry: " + e.getMessage(), facts, cp.size(), leaf, "");
    }
    String text = new String(entryBytes, StandardCharsets.US_ASCII);
    if (!(entry instanceof MessageEntry m)) {
      return failed(
          "The room log holds a tombstone at this number, not this message.",
          facts,
          cp.size(),
          leaf,
          text);
    }
    String mismatch = mismatch(message, m);
    if (mismatch != null) {
      return failed(
          "The room log entry names another message: " + mismatch + ".",
          facts,
          cp.size(),
          leaf,
          text);
    }
    List<byte[]> path = new ArrayList<>();
    try {
      for (String h : proof.proofHex()) {
        path.add(HEX.parseHex(h));
      }
      InclusionProof.verify(leaf, cp.size(), Rfc6962.leafHash(entryBytes), path, cp.root());
    } catch (RootMismatchException e) {
      facts.add("root computed from the proof: " + HEX.formatHex(e.computed()));
      return failed(
          "The room proof does not lead to the root the server signed: this entry is not in the"
              + " room log the server published.",
          facts,
          cp.size(),
          leaf,
          text);
    } catch (VerificationException | IllegalArgumentException | NullPointerException e) {
      return failed("The room proof is malformed: " + e.getMessage(), facts, cp.size(), leaf, text);
    }
    facts.add("entry included at index " + leaf + " of the room log of size " + cp.size());
    String recordLeaf = recordLeaf(bundle);
    if (!m.deviceLeafHashHex().equals(recordLeaf)) {
      return failed(
          "The room entry points to device leaf "
              + m.deviceLeafHashHex()
              + " but the bundle's record hashes to "
              + recordLeaf
              + ".",
          facts,
          cp.size(),
          leaf,
          text);
    }
    if (deviceLeafHashHex != null && !m.deviceLeafHashHex().equals(deviceLeafHashHex)) {
      return failed(
          "The room entry points to device leaf "
              + m.deviceLeafHashHex()
              + " but the device log proof is for leaf "
              + deviceLeafHashHex
              + ".",
          facts,
          cp.size(),
          leaf,
          text);
    }
    facts.add("the entry points to device leaf " + m.deviceLeafHashHex());
    return new RoomInclusion(
        Verdict.ok(
            "Verified: seq "
                + message.seq()
                + " is leaf #"
                + leaf
                + " of the room log the server signed at size "
                + cp.size()
                + ".",
            facts),
        cp.size(),
        leaf,
        text);
  }

  /** Nothing could be checked: why, in one sentence (not integrated yet, tombstone, outage). */
  public static RoomInclusion unavailable(RoomMessage message, String why) {
    return new RoomInclusion(
        Verdict.failed(why, List.of("room " + message.room() + ", seq " + message.seq())),
        -1,
        message.seq() - 1,
        "");
  }

  private static String recordLeaf(AuditBundle bundle) {
    try {
      return HEX.formatHex(Rfc6962.leafHash(Base64.getDecoder().decode(bundle.record())));
    } catch (IllegalArgumentException | NullPointerException e) {
      return "(no readable record)";
    }
  }

  private static String mismatch(RoomMessage shown, MessageEntry e) {
    if (e.seq() != shown.seq()) {
      return "seq " + e.seq() + ", want " + shown.seq();
    }
    if (!Long.toString(e.messageId()).equals(shown.messageId())) {
      return "message id " + e.messageId() + ", want " + shown.messageId();
    }
    if (!e.deviceId().equals(shown.deviceId())) {
      return "device " + e.deviceId() + ", want " + shown.deviceId();
    }
    if (!Objects.equals(e.deviceIndex(), shown.deviceIndex())) {
      return "device index " + e.deviceIndex() + ", want " + shown.deviceIndex();
    }
    if (!e.idempotencyKey().toString().equals(shown.idempotencyKey())) {
      return "key " + e.idempotencyKey() + ", want " + shown.idempotencyKey();
    }
    return null;
  }

  private static RoomInclusion failed(
      String headline, List<String> facts, long size, long leaf, String entry) {
    return new RoomInclusion(Verdict.failed(headline, facts), size, leaf, entry);
  }
}
