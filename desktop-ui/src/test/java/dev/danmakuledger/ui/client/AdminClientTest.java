package dev.danmakuledger.ui.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.admin.DeviceList;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.protocol.wire.admin.ReviewDecision;
import dev.danmakuledger.ui.testing.Harness;
import java.util.Arrays;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.RecordedRequest;
import okio.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AdminClientTest {
  private final Harness h = new Harness();

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void readsOverviewWithBearerToken() throws Exception {
    h.json("overview.json");
    Overview o = h.client.overview();
    assertEquals(310, o.batches());
    assertEquals(177, o.duplicates().redis());
    assertEquals(1259L, o.outcomes().get("CONFIRMED"));
    RecordedRequest r = h.server.takeRequest();
    assertEquals("/admin/overview", r.getPath());
    assertEquals("Bearer " + Harness.TOKEN, r.getHeader("Authorization"));
  }

  @Test
  void readsTheHistoryAndTheInstancesAndMapsANotIntegratedBundleToConflict() throws Exception {
    h.server.enqueue(
        new MockResponse()
            .setBody(
                "{\"minutes\":2,\"points\":[{\"minute\":\"2026-11-30T05:59:00Z\",\"instances\":1,"
                    + "\"batches\":3,\"records\":30,\"confirmed\":28,\"pending\":0,"
                    + "\"duplicates\":2,\"conflicts\":0,\"rejected\":0,\"subscribers\":1,"
                    + "\"admitMsPerBatch\":0.5,\"commitMsPerBatch\":2.0}]}"));
    assertEquals(30, h.client.history(2).points().get(0).records());
    assertEquals("/admin/history?minutes=2", h.server.takeRequest().getPath());
    h.server.enqueue(new MockResponse().setBody("{\"minutes\":0,\"points\":[]}"));
    assertEquals(
        ApiException.Kind.MALFORMED_RESPONSE,
        assertThrows(ApiException.class, () -> h.client.history(2)).kind(),
        "a window out of bounds is not a history");
    h.server.takeRequest();
    h.server.enqueue(new MockResponse().setBody("{\"instances\":[]}"));
    assertTrue(h.client.instances().instances().isEmpty());
    assertEquals("/admin/instances", h.server.takeRequest().getPath());
    h.server.enqueue(
        new MockResponse()
            .setResponseCode(409)
            .setHeader("Content-Type", "application/problem+json")
            .setBody("{\"code\":\"not-integrated\",\"detail\":\"seq 7 is not integrated yet\"}"));
    assertEquals(
        ApiException.Kind.CONFLICT,
        assertThrows(ApiException.class, () -> h.client.auditBundle("lobby", 7)).kind());
    assertEquals("/v1/rooms/lobby/messages/7/bundle", h.server.takeRequest().getPath());
  }

  @Test
  void readsDevicesWithNullableFields() throws Exception {
    h.json("devices.json");
    DeviceList d = h.client.devices();
    assertEquals(3, d.devices().size());
    assertEquals(null, d.devices().get(2).clockSkewMs());
    assertEquals(DeviceSummary.Status.FORKED, d.devices().get(2).status());
  }

  @Test
  void toleratesFieldsAddedByNewerServers() throws Exception {
    String body =
        Harness.read("rooms.json").replace("\"room\":\"lobby\"", "\"room\":\"lobby\",\"shard\":7");
    h.server.enqueue(new MockResponse().setBody(body));
    assertEquals("lobby", h.client.rooms().rooms().get(0).room());
  }

  @Test
  void badTokenIsUnauthorized() {
    h.server.enqueue(
        new MockResponse()
            .setResponseCode(401)
            .setHeader("Content-Type", "application/problem+json")
            .setBody("{\"code\":\"unauthenticated\",\"status\":401,\"detail\":\"unknown token\"}"));
    ApiException e = assertThrows(ApiException.class, h.client::overview);
    assertEquals(ApiException.Kind.UNAUTHORIZED, e.kind());
    assertEquals(401, e.status());
    assertEquals(
        "The server refused the admin token. Check the token file or the settings.",
        e.plainMessage());
  }

  @Test
  void serverDownIsUnreachable() {
    h.stopServer();
    ApiException e = assertThrows(ApiException.class, h.client::overview);
    assertEquals(ApiException.Kind.UNREACHABLE, e.kind());
    assertTrue(e.plainMessage().startsWith("Cannot reach the server at http://"), e.plainMessage());
  }

  @Test
  void malformedJsonIsMalformedResponse() {
    h.server.enqueue(new MockResponse().setBody("{\"batches\": 3, "));
    ApiException e = assertThrows(ApiException.class, h.client::overview);
    assertEquals(ApiException.Kind.MALFORMED_RESPONSE, e.kind());
    assertEquals(
        "The server sent a reply the console cannot read (/admin/overview).", e.plainMessage());
  }

  @Test
  void wrongTypesAreMalformedResponse() {
    h.server.enqueue(
        new MockResponse()
            .setBody(
                Harness.read("overview.json").replace("\"batches\":310", "\"batches\":\"many\"")));
    assertEquals(
        ApiException.Kind.MALFORMED_RESPONSE,
        assertThrows(ApiException.class, h.client::overview).kind());
  }

  @Test
  void missingRequiredMemberIsMalformedResponse() {
    h.server.enqueue(new MockResponse().setBody("{\"devices\":[{\"deviceId\":\"a\"}]}"));
    assertEquals(
        ApiException.Kind.MALFORMED_RESPONSE,
        assertThrows(ApiException.class, h.client::devices).kind());
  }

  @Test
  void jsonNullBodyIsMalformedResponse() {
    h.server.enqueue(new MockResponse().setBody("null"));
    assertEquals(
        ApiException.Kind.MALFORMED_RESPONSE,
        assertThrows(ApiException.class, h.client::alerts).kind());
  }

  @Test
  void oversizedBodyIsRefusedWithoutBufferingIt() {
    Buffer huge = new Buffer();
    byte[] chunk = new byte[1024 * 1024];
    Arrays.fill(chunk, (byte) ' ');
    for (int i = 0; i < 17; i++) {
      huge.write(chunk);
    }
    h.server.enqueue(new MockResponse().setBody(huge));
    assertEquals(
        ApiException.Kind.MALFORMED_RESPONSE,
        assertThrows(ApiException.class, h.client::overview).kind());
  }

  @Test
  void conflictCarriesTheProblemDetail() {
    h.server.enqueue(
        new MockResponse()
            .setResponseCode(409)
            .setHeader("Content-Type", "application/problem+json")
            .setBody(Harness.read("problem-409.json")));
    ApiException e =
        assertThrows(
            ApiException.class,
            () -> h.client.decide("253389661274124290", new ReviewDecision("APPROVE", 4, null)));
    assertEquals(ApiException.Kind.CONFLICT, e.kind());
    assertEquals("message 253389661274124290 is at version 5, not 4", e.plainMessage());
  }

  @Test
  void serverErrorWithHtmlBodyStillReadsPlainly() {
    h.server.enqueue(new MockResponse().setResponseCode(503).setBody("<html>oops</html>"));
    ApiException e = assertThrows(ApiException.class, h.client::overview);
    assertEquals(ApiException.Kind.SERVER_ERROR, e.kind());
    assertEquals("The server failed (HTTP 503).", e.plainMessage());
  }

  @Test
  void decisionIsPostedAsContractJson() throws Exception {
    h.server.enqueue(new MockResponse().setBody("{}"));
    h.client.decide("42", new ReviewDecision("REJECT", 4, "spam"));
    RecordedRequest r = h.server.takeRequest();
    assertEquals("POST", r.getMethod());
    assertEquals("/admin/review/42", r.getPath());
    assertEquals(
        "{\"decision\":\"REJECT\",\"version\":4,\"reason\":\"spam\"}", r.getBody().readUtf8());
  }

  @Test
  void lookupPathsEscapeUserInput() throws Exception {
    h.server.enqueue(new MockResponse().setResponseCode(404));
    assertThrows(ApiException.class, () -> h.client.messageByKey("a/b:c?d"));
    assertEquals("/v1/messages/a%2Fb:c%3Fd", h.server.takeRequest().getPath());
    h.json("room-page.json");
    RoomPage page = h.client.roomMessages("live.1", 5, 100);
    assertEquals(3, page.next());
    assertEquals("/v1/rooms/live.1/messages?after=5&limit=100", h.server.takeRequest().getPath());
  }

  @Test
  void inclusionProofAsksForTheCheckpointSize() throws Exception {
    h.server.enqueue(new MockResponse().setResponseCode(404));
    assertThrows(ApiException.class, () -> h.client.inclusionProof("kiosk-1", 3, 24));
    assertEquals(
        "/v1/devices/kiosk-1/proofs/inclusion?index=3&size=24", h.server.takeRequest().getPath());
  }
}
