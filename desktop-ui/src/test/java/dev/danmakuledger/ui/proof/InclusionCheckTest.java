package dev.danmakuledger.ui.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.DeviceKey;
import dev.danmakuledger.ui.testing.Ledger;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class InclusionCheckTest {
  private static final Ledger LEDGER = Ledger.standard();
  private static final Ledger.Device DEVICE = LEDGER.devices.get("kiosk-2");

  private static RoomMessage messageAt(long index) {
    return LEDGER.messages.stream()
        .filter(m -> m.deviceId().equals(DEVICE.id) && m.deviceIndex() == index)
        .findFirst()
        .orElseThrow();
  }

  private static Verdict check(RoomMessage m, LogState log, InclusionProofResponse p, DeviceKey k) {
    return InclusionCheck.verify(m, log, p, k);
  }

  @Test
  void everyLeafOfTheDeviceLogVerifies() {
    for (long i = 0; i < DEVICE.size(); i++) {
      Verdict v = check(messageAt(i), DEVICE.log(), DEVICE.proof(i), DEVICE.key());
      assertTrue(v.verified(), "leaf " + i + ": " + v);
      assertTrue(v.headline().startsWith("Verified: leaf #" + i), v.headline());
    }
  }

  @Test
  void textTheServerChangedInItsMessageIsRedNamingBothTexts() {
    RoomMessage m = messageAt(4);
    Verdict v = check(withText(m, "edited"), DEVICE.log(), DEVICE.proof(4), DEVICE.key());
    assertFalse(v.verified());
    assertEquals(
        "The server's copy of this message differs from what the device signed: server shows text"
            + " \u201cedited\u201d but the device signed \u201c"
            + m.text()
            + "\u201d.",
        v.headline());
  }

  @Test
  void everyShownFieldIsComparedWithTheSignedRecord() {
    RoomMessage m = messageAt(4);
    RoomMessage other = messageAt(5);
    RoomMessage shown =
        new RoomMessage(
            m.room().equals("lobby") ? "live.1" : "lobby",
            m.seq(),
            m.messageId(),
            other.idempotencyKey(),
            m.deviceId(),
            "u-other",
            m.text(),
            m.playbackMs() == null ? 1L : m.playbackMs() + 1,
            m.mode() == 1 ? 4 : 1,
            m.color() ^ 1,
            m.fontSize() == 25 ? 18 : 25,
            m.status(),
            m.deviceIndex());
    Verdict v = check(shown, DEVICE.log(), DEVICE.proof(4), DEVICE.key());
    assertFalse(v.verified());
    assertTrue(v.headline().contains("server shows room"), v.headline());
    assertTrue(v.headline().endsWith("(and 6 more, below)."), v.headline());
    for (String field :
        List.of("user", "idempotency key", "playback time (ms)", "mode", "colour", "font size")) {
      assertTrue(
          v.details().stream().anyMatch(d -> d.startsWith("server shows " + field + " ")),
          field + " in " + v.details());
    }
  }

  @Test
  void canonicalBytesOfAnotherRecordAreALeafMismatch() {
    InclusionProofResponse p =
        withCanonical(DEVICE.proof(5), DEVICE.records.get(6).canonicalBytes());
    Verdict v = check(messageAt(5), DEVICE.log(), p, DEVICE.key());
    assertFalse(v.verified());
    assertTrue(
        v.headline().startsWith("The record the server sent does not hash to the leaf"),
        v.headline());
  }

  @Test
  void missingOrUndecodableCanonicalBytesAreRed() {
    Verdict missing =
        check(messageAt(5), DEVICE.log(), withCanonical(DEVICE.proof(5), null), DEVICE.key());
    assertFalse(missing.verified());
    assertTrue(
        missing.headline().startsWith("The server did not send the record the device signed"),
        missing.headline());
    byte[] truncated = Arrays.copyOf(DEVICE.records.get(5).canonicalBytes(), 20);
    for (byte[] bad : List.of(new byte[0], truncated, new byte[] {9, 9, 9})) {
      Verdict v =
          check(messageAt(5), DEVICE.log(), withCanonical(DEVICE.proof(5), bad), DEVICE.key());
      assertFalse(v.verified());
      assertTrue(
          v.headline().startsWith("The record the server sent is not a valid canonical record"),
          v.headline());
    }
  }

  @Test
  void flippedBitInProofIsRed() {
    InclusionProofResponse p = DEVICE.proof(5);
    List<String> hashes = new ArrayList<>(p.proofHex());
    hashes.set(1, flipFirstBit(hashes.get(1)));
    Verdict v =
        check(messageAt(5), DEVICE.log(), withHashes(p, p.leafHashHex(), hashes), DEVICE.key());
    assertFalse(v.verified());
    assertTrue(v.headline().contains("does not lead to the root the device signed"), v.headline());
  }

  @Test
  void wrongLeafIsRed() {
    InclusionProofResponse p = DEVICE.proof(5);
    String otherLeaf = DEVICE.proof(6).leafHashHex();
    Verdict leafOnly =
        check(messageAt(5), DEVICE.log(), withHashes(p, otherLeaf, p.proofHex()), DEVICE.key());
    assertFalse(leafOnly.verified());
    assertTrue(leafOnly.headline().contains("does not hash to the leaf"), leafOnly.headline());
    InclusionProofResponse swapped =
        withCanonical(
            withHashes(p, otherLeaf, p.proofHex()), DEVICE.records.get(6).canonicalBytes());
    Verdict v = check(messageAt(5), DEVICE.log(), swapped, DEVICE.key());
    assertFalse(v.verified());
    assertTrue(v.headline().contains("does not lead to the root"), v.headline());
  }

  @Test
  void truncatedProofIsRed() {
    InclusionProofResponse p = DEVICE.proof(5);
    List<String> shorter = p.proofHex().subList(0, p.proofHex().size() - 1);
    Verdict v =
        check(messageAt(5), DEVICE.log(), withHashes(p, p.leafHashHex(), shorter), DEVICE.key());
    assertFalse(v.verified());
    assertTrue(v.headline().startsWith("The proof is malformed"), v.headline());
  }

  @Test
  void nonHexProofIsRed() {
    InclusionProofResponse p = DEVICE.proof(5);
    Verdict v = check(messageAt(5), DEVICE.log(), withHashes(p, "zz", p.proofHex()), DEVICE.key());
    assertFalse(v.verified());
    assertEquals("The proof is malformed: its hashes are not hex.", v.headline());
  }

  @Test
  void checkpointSignedByAnotherKeyIsRed() {
    NoteSigner impostor = NoteSigner.generate(DeviceLog.origin(DEVICE.id), new SecureRandom());
    String forged =
        Checkpoints.sign(
            new Checkpoint(DeviceLog.origin(DEVICE.id), DEVICE.size(), DEVICE.root()), impostor);
    LogState log =
        new LogState(DEVICE.id, DEVICE.size(), null, forged, null, LogState.Status.VERIFIED);
    Verdict v = check(messageAt(2), log, DEVICE.proof(2), DEVICE.key());
    assertFalse(v.verified());
    assertTrue(
        v.headline().startsWith("The device's checkpoint is not signed by its enrolled key"));
  }

  @Test
  void checkpointOfAnotherDeviceIsRed() {
    Ledger.Device other = LEDGER.devices.get("kiosk-1");
    LogState log =
        new LogState(
            DEVICE.id, other.size(), null, other.checkpoint(), null, LogState.Status.VERIFIED);
    Verdict v = check(messageAt(2), log, DEVICE.proof(2), DEVICE.key());
    assertFalse(v.verified(), v.toString());
  }

  @Test
  void proofForAnotherSizeIsRed() {
    InclusionProofResponse p = DEVICE.proof(2);
    InclusionProofResponse resized =
        new InclusionProofResponse(
            p.deviceId(),
            p.index(),
            p.size() - 1,
            p.leafHashHex(),
            p.proofHex(),
            p.rootHex(),
            p.checkpoint(),
            p.canonical());
    Verdict v = check(messageAt(2), DEVICE.log(), resized, DEVICE.key());
    assertFalse(v.verified());
    assertTrue(v.headline().contains("size " + (DEVICE.size() - 1)), v.headline());
  }

  @Test
  void proofForAnotherLeafIsRed() {
    Verdict v = check(messageAt(2), DEVICE.log(), DEVICE.proof(3), DEVICE.key());
    assertFalse(v.verified());
    assertTrue(v.headline().startsWith("The server sent a proof for another leaf"), v.headline());
  }

  @Test
  void unreadableEnrolledKeyIsRed() {
    Verdict v =
        check(messageAt(2), DEVICE.log(), DEVICE.proof(2), new DeviceKey(DEVICE.id, "not-a-key"));
    assertFalse(v.verified());
    assertTrue(v.headline().startsWith("The device's enrolled key is unreadable"), v.headline());
  }

  @Test
  void tombstoneHasNothingToProve() {
    RoomMessage m = messageAt(2);
    RoomMessage tombstone =
        new RoomMessage(
            m.room(),
            99,
            null,
            null,
            m.deviceId(),
            null,
            null,
            null,
            0,
            0,
            1,
            RoomMessage.Status.TOMBSTONE,
            null);
    Verdict v = check(tombstone, DEVICE.log(), DEVICE.proof(2), DEVICE.key());
    assertFalse(v.verified());
  }

  private static String flipFirstBit(String hex) {
    byte[] b = HexFormat.of().parseHex(hex);
    b[0] ^= 1;
    return HexFormat.of().formatHex(b);
  }

  private static InclusionProofResponse withHashes(
      InclusionProofResponse p, String leaf, List<String> hashes) {
    return new InclusionProofResponse(
        p.deviceId(),
        p.index(),
        p.size(),
        leaf,
        hashes,
        p.rootHex(),
        p.checkpoint(),
        p.canonical());
  }

  private static InclusionProofResponse withCanonical(InclusionProofResponse p, byte[] canonical) {
    return new InclusionProofResponse(
        p.deviceId(),
        p.index(),
        p.size(),
        p.leafHashHex(),
        p.proofHex(),
        p.rootHex(),
        p.checkpoint(),
        canonical == null ? null : Base64.getEncoder().encodeToString(canonical));
  }

  private static RoomMessage withText(RoomMessage m, String text) {
    return new RoomMessage(
        m.room(),
        m.seq(),
        m.messageId(),
        m.idempotencyKey(),
        m.deviceId(),
        m.user(),
        text,
        m.playbackMs(),
        m.mode(),
        m.color(),
        m.fontSize(),
        m.status(),
        m.deviceIndex());
  }
}
