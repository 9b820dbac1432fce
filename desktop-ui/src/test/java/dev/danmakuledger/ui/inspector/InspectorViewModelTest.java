package dev.danmakuledger.ui.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.ui.client.Endpoint;
import dev.danmakuledger.ui.proof.RoomInclusion;
import dev.danmakuledger.ui.testing.FixtureApi;
import dev.danmakuledger.ui.testing.Harness;
import dev.danmakuledger.ui.testing.Ledger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InspectorViewModelTest {
  private final Harness h = new Harness();
  private final FixtureApi api = new FixtureApi(Ledger.standard(), h.clock);
  private final InspectorViewModel vm;

  InspectorViewModelTest() {
    h.client.reconnect(new Endpoint(h.server.url("/"), FixtureApi.TOKEN));
    h.server.setDispatcher(api);
    vm = new InspectorViewModel(h.context);
  }

  @AfterEach
  void close() {
    h.close();
  }

  private RoomMessage confirmed(String deviceId) {
    return api.messages().stream()
        .filter(m -> m.deviceId().equals(deviceId) && m.status() == RoomMessage.Status.CONFIRMED)
        .skip(3)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void byMessageIdDecodesAndVerifiesLocally() {
    RoomMessage m = confirmed("stb-7");
    vm.lookup(m.messageId());
    assertEquals(m, vm.message().get());
    assertTrue(vm.verdict().get().verified(), vm.verdict().get().toString());
    assertEquals("device stb-7, index " + m.deviceIndex() + " of 24", vm.position().get());
    assertTrue(vm.decodedId().get().startsWith("created 2025-11-30 "), vm.decodedId().get());
    assertTrue(
        vm.decodedId()
            .get()
            .endsWith(", node 3, sequence " + (Long.parseLong(m.messageId()) & 4095)));
    assertEquals("", vm.error().get());
    assertFalse(vm.busy().get());
    assertTrue(
        vm.verdict()
            .get()
            .details()
            .contains("the message matches the signed record field by field"),
        vm.verdict().get().details().toString());
  }

  @Test
  void textTheServerChangedIsRedNamingWhatTheDeviceSigned() {
    RoomMessage m = confirmed("kiosk-1");
    api.tamper(FixtureApi.Tamper.MESSAGE_TEXT);
    vm.lookup(m.idempotencyKey());
    assertEquals(FixtureApi.EDITED_TEXT, vm.message().get().text());
    assertFalse(vm.verdict().get().verified());
    assertTrue(
        vm.verdict()
            .get()
            .headline()
            .contains(
                "server shows text \u201c"
                    + FixtureApi.EDITED_TEXT
                    + "\u201d but the device signed \u201c"
                    + m.text()
                    + "\u201d"),
        vm.verdict().get().headline());
  }

  @Test
  void canonicalBytesTheServerChangedAreALeafMismatch() {
    api.tamper(FixtureApi.Tamper.CANONICAL);
    vm.lookup(confirmed("kiosk-2").messageId());
    assertFalse(vm.verdict().get().verified());
    assertTrue(
        vm.verdict()
            .get()
            .headline()
            .startsWith("The record the server sent does not hash to the leaf its proof is for"),
        vm.verdict().get().headline());
  }

  @Test
  void aProofWithoutCanonicalBytesIsRed() {
    api.tamper(FixtureApi.Tamper.NO_CANONICAL);
    vm.lookup(confirmed("stb-7").messageId());
    assertFalse(vm.verdict().get().verified());
    assertTrue(
        vm.verdict().get().headline().startsWith("The server did not send the record"),
        vm.verdict().get().headline());
  }

  @Test
  void byKeyAndByRoomSeqFindTheSameMessage() {
    RoomMessage m = confirmed("kiosk-2");
    vm.lookup(m.idempotencyKey());
    assertEquals(m, vm.message().get());
    vm.lookup(m.room() + "#" + m.seq());
    assertEquals(m, vm.message().get());
    assertTrue(vm.verdict().get().verified());
  }

  @Test
  void tamperedProofIsRedWithAnExplanation() {
    api.tamperProofs(true);
    vm.lookup(confirmed("kiosk-1").messageId());
    assertFalse(vm.verdict().get().verified());
    assertTrue(
        vm.verdict().get().headline().contains("does not lead to the root the device signed"),
        vm.verdict().get().headline());
  }

  @Test
  void theRoomLogInclusionIsVerifiedBesideTheDeviceLogs() {
    RoomMessage m = confirmed("kiosk-2");
    vm.lookup(m.messageId());
    RoomInclusion r = vm.roomInclusion().get();
    assertTrue(r.verdict().verified(), r.toString());
    assertEquals(m.seq() - 1, r.leafIndex());
    assertEquals(api.roomLogs.size(m.room()), r.logSize());
    assertTrue(
        r.entry().startsWith("v1 " + m.seq() + " M " + m.messageId() + " kiosk-2 "), r.entry());
    assertTrue(r.entry().endsWith(" " + m.idempotencyKey()), r.entry());
    assertEquals(
        "Verified: seq "
            + m.seq()
            + " is leaf #"
            + (m.seq() - 1)
            + " of the room log the server signed at size "
            + r.logSize()
            + ".",
        r.verdict().headline());
    assertTrue(vm.verdict().get().verified(), "the device side is verified as before");
  }

  @Test
  void aTamperedRoomProofIsRedWhileTheDeviceLogStaysGreen() {
    api.tamper(FixtureApi.Tamper.ROOM_PROOF);
    vm.lookup(confirmed("stb-7").messageId());
    assertTrue(vm.verdict().get().verified());
    RoomInclusion r = vm.roomInclusion().get();
    assertFalse(r.verdict().verified());
    assertTrue(
        r.verdict().headline().startsWith("The room proof does not lead to the root"),
        r.verdict().headline());
  }

  @Test
  void aBundleCarryingAnotherEntryIsRedNamingTheDifference() {
    RoomMessage m = confirmed("kiosk-1");
    api.tamper(FixtureApi.Tamper.ROOM_ENTRY);
    vm.lookup(m.messageId());
    RoomInclusion r = vm.roomInclusion().get();
    assertFalse(r.verdict().verified());
    assertTrue(
        r.verdict().headline().startsWith("The room log entry names another message: seq "),
        r.verdict().headline());
  }

  @Test
  void aRoomCheckpointSignedByAnotherKeyIsRed() {
    RoomMessage m = confirmed("kiosk-2");
    api.roomLogs.resignWith(
        m.room(),
        NoteSigner.generate("danmaku-ledger/server-log/fixture", new java.security.SecureRandom()));
    vm.lookup(m.messageId());
    RoomInclusion r = vm.roomInclusion().get();
    assertFalse(r.verdict().verified());
    assertTrue(
        r.verdict().headline().startsWith("The room checkpoint is not signed by the server's log"),
        r.verdict().headline());
  }

  @Test
  void aNumberWithoutABundleSaysSoInsteadOfFailingTheLookup() {
    RoomMessage m = confirmed("stb-7");
    h.server.setDispatcher(
        new okhttp3.mockwebserver.Dispatcher() {
          @Override
          public okhttp3.mockwebserver.MockResponse dispatch(
              okhttp3.mockwebserver.RecordedRequest request) {
            if (request.getPath().endsWith("/bundle")) {
              return FixtureApi.problem(409, "not-integrated", "not integrated yet");
            }
            return api.dispatch(request);
          }
        });
    vm.lookup(m.messageId());
    assertTrue(vm.verdict().get().verified());
    RoomInclusion r = vm.roomInclusion().get();
    assertFalse(r.verdict().verified());
    assertEquals(
        "The room log has not integrated seq " + m.seq() + " yet; look it up again soon.",
        r.verdict().headline());
    assertEquals(-1, r.logSize());
  }

  @Test
  void unknownMessageSaysSo() {
    vm.lookup("lobby#999");
    assertNull(vm.message().get());
    assertEquals("No message matches lobby#999.", vm.error().get());
  }

  @Test
  void malformedInputNeverReachesTheServer() {
    vm.lookup("kiosk-1:u:12:zz");
    assertTrue(vm.error().get().startsWith("That idempotency key is malformed"));
    assertEquals(0, h.server.getRequestCount());
  }
}
