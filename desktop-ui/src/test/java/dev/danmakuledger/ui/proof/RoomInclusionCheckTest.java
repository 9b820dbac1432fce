package dev.danmakuledger.ui.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.room.AuditBundle;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.ui.client.ApiException;
import dev.danmakuledger.ui.client.Endpoint;
import dev.danmakuledger.ui.testing.FixtureApi;
import dev.danmakuledger.ui.testing.Harness;
import dev.danmakuledger.ui.testing.Ledger;
import dev.danmakuledger.ui.testing.RoomLogFixture;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The room-log side of the inspector (docs/room-log.md, "Audit bundle"), on bundles of a
 * cryptographically real room log: every entry verifies, and each corruption of the bundle is red,
 * named by what was corrupted.
 */
class RoomInclusionCheckTest {
  private final Harness h = new Harness();
  private final FixtureApi api = new FixtureApi(Ledger.standard(), h.clock);
  private final String logKey = api.roomLogs.logKey.verifierKey();

  RoomInclusionCheckTest() {
    h.client.reconnect(new Endpoint(h.server.url("/"), FixtureApi.TOKEN));
    h.server.setDispatcher(api);
  }

  @AfterEach
  void close() {
    h.close();
  }

  private List<RoomMessage> lobby() {
    return api.messages().stream()
        .filter(m -> m.room().equals("lobby") && m.deviceIndex() != null)
        .toList();
  }

  private AuditBundle bundle(RoomMessage m) throws ApiException {
    return h.client.auditBundle(m.room(), m.seq());
  }

  private static AuditBundle withRoom(
      AuditBundle b, String entry, String checkpoint, AuditBundle.Inclusion proof, String record) {
    return new AuditBundle(
        b.format(),
        b.room(),
        b.seq(),
        entry,
        checkpoint,
        proof,
        b.deviceId(),
        record,
        b.deviceInclusion(),
        b.deviceCheckpoint());
  }

  private static AuditBundle withProof(AuditBundle b, AuditBundle.Inclusion proof) {
    return withRoom(b, b.entry(), b.roomCheckpoint(), proof, b.record());
  }

  private static String headline(RoomInclusion r) {
    assertFalse(r.verdict().verified(), r.toString());
    return r.verdict().headline();
  }

  @Test
  void everyMessageOfTheRoomLogVerifies() throws ApiException {
    for (RoomMessage m : lobby()) {
      RoomInclusion r = RoomInclusionCheck.verify(m, bundle(m), logKey, null);
      assertTrue(r.verdict().verified(), m.seq() + ": " + r);
      assertEquals(m.seq() - 1, r.leafIndex());
      assertEquals(api.roomLogs.size("lobby"), r.logSize());
    }
  }

  @Test
  void aBundleOfAnotherMessageIsRed() throws ApiException {
    RoomMessage m = lobby().get(3);
    RoomMessage other = lobby().get(4);
    assertTrue(
        headline(RoomInclusionCheck.verify(m, bundle(other), logKey, null))
            .startsWith("The server sent the bundle of another message"));
  }

  @Test
  void wrongLeafIndexIsRed() throws ApiException {
    RoomMessage m = lobby().get(2);
    AuditBundle b = bundle(m);
    AuditBundle.Inclusion p = b.roomInclusion();
    AuditBundle wrong =
        withProof(b, new AuditBundle.Inclusion(p.index() + 1, p.size(), p.proofHex()));
    assertTrue(
        headline(RoomInclusionCheck.verify(m, wrong, logKey, null))
            .startsWith("The room proof is for leaf " + (p.index() + 1)));
  }

  @Test
  void aProofForAnotherSizeIsRed() throws ApiException {
    RoomMessage m = lobby().get(2);
    AuditBundle b = bundle(m);
    AuditBundle.Inclusion p = b.roomInclusion();
    AuditBundle wrong =
        withProof(b, new AuditBundle.Inclusion(p.index(), p.size() + 1, p.proofHex()));
    assertTrue(
        headline(RoomInclusionCheck.verify(m, wrong, logKey, null))
            .startsWith("The room proof is for a log of size " + (p.size() + 1)));
  }

  @Test
  void flippedBitInTheProofIsARootMismatch() throws ApiException {
    RoomMessage m = lobby().get(5);
    AuditBundle b = bundle(m);
    List<String> hashes = new ArrayList<>(b.roomInclusion().proofHex());
    String first = hashes.get(0);
    hashes.set(0, (first.charAt(0) == 'a' ? 'b' : 'a') + first.substring(1));
    AuditBundle.Inclusion p = b.roomInclusion();
    assertTrue(
        headline(
                RoomInclusionCheck.verify(
                    m,
                    withProof(b, new AuditBundle.Inclusion(p.index(), p.size(), hashes)),
                    logKey,
                    null))
            .startsWith("The room proof does not lead to the root the server signed"));
  }

  @Test
  void truncatedOrNonHexProofIsRed() throws ApiException {
    RoomMessage m = lobby().get(5);
    AuditBundle b = bundle(m);
    AuditBundle.Inclusion p = b.roomInclusion();
    List<String> truncated = p.proofHex().subList(0, p.proofHex().size() - 1);
    assertTrue(
        headline(
                RoomInclusionCheck.verify(
                    m,
                    withProof(b, new AuditBundle.Inclusion(p.index(), p.size(), truncated)),
                    logKey,
                    null))
            .startsWith("The room proof"));
    List<String> nonHex = new ArrayList<>(p.proofHex());
    nonHex.set(0, "zz" + nonHex.get(0).substring(2));
    assertTrue(
        headline(
                RoomInclusionCheck.verify(
                    m,
                    withProof(b, new AuditBundle.Inclusion(p.index(), p.size(), nonHex)),
                    logKey,
                    null))
            .startsWith("The room proof is malformed"));
  }

  @Test
  void aCheckpointSignedByAnotherKeyOrWithAnUnreadableKeyIsRed() throws ApiException {
    RoomMessage m = lobby().get(1);
    AuditBundle b = bundle(m);
    String other =
        NoteSigner.generate("danmaku-ledger/server-log/fixture", new SecureRandom()).verifierKey();
    assertTrue(
        headline(RoomInclusionCheck.verify(m, b, other, null))
            .startsWith("The room checkpoint is not signed by the server's log key"));
    assertTrue(
        headline(RoomInclusionCheck.verify(m, b, "not a key", null))
            .startsWith("The server's room log key is unreadable"));
    String cut = b.roomCheckpoint().substring(0, 20);
    assertFalse(
        RoomInclusionCheck.verify(
                m, withRoom(b, b.entry(), cut, b.roomInclusion(), b.record()), logKey, null)
            .verdict()
            .verified());
  }

  @Test
  void anEntryOfAnotherNumberATombstoneOrGarbageIsRed() throws ApiException {
    RoomMessage m = lobby().get(3);
    AuditBundle b = bundle(m);
    String next = Base64.getEncoder().encodeToString(api.roomLogs.entry("lobby", m.seq() + 1));
    assertTrue(
        headline(
                RoomInclusionCheck.verify(
                    m,
                    withRoom(b, next, b.roomCheckpoint(), b.roomInclusion(), b.record()),
                    logKey,
                    null))
            .startsWith("The room log entry names another message: seq " + (m.seq() + 1)));
    String tomb = Base64.getEncoder().encodeToString(RoomLogFixture.tombstone(m.seq()));
    RoomInclusion t =
        RoomInclusionCheck.verify(
            m, withRoom(b, tomb, b.roomCheckpoint(), b.roomInclusion(), b.record()), logKey, null);
    assertEquals("The room log holds a tombstone at this number, not this message.", headline(t));
    assertTrue(t.entry().startsWith("v1 " + m.seq() + " T "), t.entry());
    for (String garbage :
        new String[] {"%%%", Base64.getEncoder().encodeToString("v2 1 M".getBytes()), ""}) {
      assertTrue(
          headline(
                  RoomInclusionCheck.verify(
                      m,
                      withRoom(b, garbage, b.roomCheckpoint(), b.roomInclusion(), b.record()),
                      logKey,
                      null))
              .startsWith("The room log entry is not a v1 entry"),
          garbage);
    }
  }

  @Test
  void aRecordOtherThanTheOneTheEntryPointsToIsRed() throws ApiException {
    RoomMessage m = lobby().get(3);
    AuditBundle b = bundle(m);
    String otherRecord = bundle(lobby().get(4)).record();
    assertTrue(
        headline(
                RoomInclusionCheck.verify(
                    m,
                    withRoom(b, b.entry(), b.roomCheckpoint(), b.roomInclusion(), otherRecord),
                    logKey,
                    null))
            .contains("but the bundle's record hashes to"));
    String wrongLeaf = HexFormat.of().formatHex(new byte[32]);
    assertTrue(
        headline(RoomInclusionCheck.verify(m, b, logKey, wrongLeaf))
            .endsWith("but the device log proof is for leaf " + wrongLeaf + "."));
  }

  @Test
  void aBundleOfAnotherShapeIsRefusedWhenRead() throws ApiException {
    AuditBundle b = bundle(lobby().get(0));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new AuditBundle(
                "danmaku-ledger-audit-bundle/v2",
                b.room(),
                b.seq(),
                b.entry(),
                b.roomCheckpoint(),
                b.roomInclusion(),
                b.deviceId(),
                b.record(),
                b.deviceInclusion(),
                b.deviceCheckpoint()));
    assertThrows(
        IllegalArgumentException.class,
        () -> new AuditBundle.Inclusion(0, 1, Collections.nCopies(64, "00".repeat(32))));
    assertThrows(
        IllegalArgumentException.class,
        () -> withRoom(b, null, b.roomCheckpoint(), b.roomInclusion(), b.record()));
  }
}
