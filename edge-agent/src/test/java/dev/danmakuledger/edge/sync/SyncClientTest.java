package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.protocol.trace.TraceParent;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BinaryBatch;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.EnrollResponse;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPInputStream;
import okhttp3.OkHttpClient;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.mockwebserver.SocketPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP layer of the sync client against MockWebServer. */
class SyncClientTest {
  final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
  final OkHttpClient http = new OkHttpClient.Builder().readTimeout(Duration.ofSeconds(5)).build();
  MockWebServer web;
  SyncClient client;

  @BeforeEach
  void setUp() throws IOException {
    web = new MockWebServer();
    web.start();
    client = new SyncClient(http, web.url("/").toString(), clock);
  }

  @AfterEach
  void tearDown() throws IOException {
    web.shutdown();
  }

  static MockResponse json(int status, String body) {
    return new MockResponse()
        .setResponseCode(status)
        .setHeader("Content-Type", "application/json")
        .setBody(body);
  }

  @Test
  void enrollPostsTheKeyAndReadsTheReply() throws Exception {
    web.enqueue(
        json(
            200,
            "{\"deviceId\":\"dev-1\",\"origin\":\"danmaku-ledger/device/dev-1\","
                + "\"serverVerifierKey\":\"k\",\"newerField\":1}"));

    EnrollResponse r = client.enroll(new EnrollRequest("dev-1", "cHVi", "tok"));

    assertEquals("danmaku-ledger/device/dev-1", r.origin());
    RecordedRequest req = web.takeRequest();
    assertEquals("POST", req.getMethod());
    assertEquals("/v1/devices", req.getPath());
    JsonNode body = Json.mapper().readTree(req.getBody().readUtf8());
    assertEquals("dev-1", body.get("deviceId").asText());
    assertEquals("cHVi", body.get("publicKey").asText());
    assertEquals("tok", body.get("enrollToken").asText());
  }

  @Test
  void everyBatchCarriesAFreshTraceparentThatItsErrorNames() throws Exception {
    String reply =
        "{\"deviceId\":\"d\",\"verifiedSize\":0,\"rootHex\":null,\"outcomes\":[],"
            + "\"receipt\":\"r\"}";
    web.enqueue(json(200, reply));
    web.enqueue(json(500, "{}"));
    BatchRequest batch = new BatchRequest(0, List.of(), "note", null);
    client.postBatch("d", batch);
    IOException e = assertThrows(IOException.class, () -> client.postBatch("d", batch));
    TraceParent first =
        TraceParent.parse(web.takeRequest().getHeader(TraceParent.HEADER)).orElseThrow();
    TraceParent second =
        TraceParent.parse(web.takeRequest().getHeader(TraceParent.HEADER)).orElseThrow();
    assertNotEquals(first.traceId(), second.traceId());
    assertTrue(e.getMessage().contains("(trace " + second.traceId() + ")"), e.getMessage());
  }

  @Test
  void acksQueryCarriesTheRangeAndEscapesTheDeviceId() throws Exception {
    web.enqueue(json(200, "{\"deviceId\":\"a b\",\"from\":3,\"to\":9,\"outcomes\":[]}"));
    client.acks("a b", 3, 9);
    assertEquals("/v1/devices/a%20b/acks?from=3&to=9", web.takeRequest().getPath());
  }

  @Test
  void problemRepliesBecomeTypedExceptions() {
    web.enqueue(
        new MockResponse()
            .setResponseCode(409)
            .setHeader("Content-Type", "application/problem+json")
            .setBody(
                "{\"type\":\"https://danmaku-ledger.dev/problems/size-mismatch\",\"title\":\"t\","
                    + "\"status\":409,\"detail\":\"resend from 12\",\"code\":\"size-mismatch\","
                    + "\"verifiedSize\":12}"));
    ServerProblemException e =
        assertThrows(ServerProblemException.class, () -> client.log("dev-1"));
    assertEquals(409, e.status());
    assertEquals("size-mismatch", e.code());
    assertEquals(
        12, ((Number) e.problem().orElseThrow().extensions().get("verifiedSize")).intValue());
    assertFalse(e.transientFailure());
    assertTrue(e.getMessage().contains("resend from 12"), e.getMessage());
  }

  @Test
  void retryAfterInSecondsOrAsAnHttpDate() {
    web.enqueue(new MockResponse().setResponseCode(503).setHeader("Retry-After", "5"));
    web.enqueue(
        new MockResponse()
            .setResponseCode(429)
            .setHeader("Retry-After", "Thu, 01 Jan 2026 00:01:00 GMT"));
    web.enqueue(new MockResponse().setResponseCode(503).setHeader("Retry-After", "soon"));
    ServerProblemException seconds =
        assertThrows(ServerProblemException.class, () -> client.log("d"));
    ServerProblemException date = assertThrows(ServerProblemException.class, () -> client.log("d"));
    ServerProblemException junk = assertThrows(ServerProblemException.class, () -> client.log("d"));
    assertEquals(Duration.ofSeconds(5), seconds.retryAfter().orElseThrow());
    assertEquals(Duration.ofMinutes(1), date.retryAfter().orElseThrow());
    assertTrue(junk.retryAfter().isEmpty());
    assertTrue(seconds.transientFailure() && date.transientFailure());
  }

  @Test
  void hugeRetryAfterIsCappedAtAnHour() {
    assertEquals(Duration.ofHours(1), client.retryAfter("99999999"));
    assertNull(client.retryAfter("-3"));
  }

  @Test
  void nonProblemErrorBodyIsKeptAsStatusOnly() {
    web.enqueue(new MockResponse().setResponseCode(502).setBody("<html>bad gateway</html>"));
    ServerProblemException e = assertThrows(ServerProblemException.class, () -> client.log("d"));
    assertEquals(502, e.status());
    assertTrue(e.problem().isEmpty());
    assertEquals("", e.code());
    assertTrue(e.transientFailure());
  }

  @Test
  void malformedSuccessReplyIsAnIoErrorNotAProblem() {
    web.enqueue(json(200, "{\"deviceId\":\"d\",\"verifiedSize\":\"many\"}"));
    IOException e = assertThrows(IOException.class, () -> client.log("d"));
    assertFalse(e instanceof ServerProblemException);
    assertTrue(e.getMessage().contains("not a valid LogState"), e.getMessage());
  }

  @Test
  void droppedConnectionIsAnIoError() {
    web.enqueue(new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AFTER_REQUEST));
    IOException e = assertThrows(IOException.class, () -> client.log("d"));
    assertFalse(e instanceof ServerProblemException);
  }

  @Test
  void badServerUrlIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new SyncClient(http, "ftp://x", clock));
  }

  static final String EMPTY_REPLY =
      "{\"deviceId\":\"d\",\"verifiedSize\":0,\"rootHex\":null,\"outcomes\":[],"
          + "\"receipt\":\"r\"}";

  static final String LOG_REPLY =
      "{\"deviceId\":\"d\",\"verifiedSize\":0,\"rootHex\":null,\"status\":\"ACTIVE\"}";

  static MockResponse takingGzip(MockResponse r) {
    return r.setHeader("Accept-Encoding", "gzip");
  }

  static MockResponse problem(int status, String code) {
    return new MockResponse()
        .setResponseCode(status)
        .setHeader("Content-Type", "application/problem+json")
        .setBody(
            "{\"type\":\"about:blank\",\"title\":\"t\",\"status\":"
                + status
                + ",\"detail\":\"d\",\"code\":\""
                + code
                + "\"}");
  }

  static String gunzip(RecordedRequest req) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(req.getBody().inputStream())) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  final BatchRequest batch = new BatchRequest(0, List.of(), "note", null);

  @Test
  void batchesGoPlainUntilTheServerAnnouncesGzip() throws Exception {
    web.enqueue(json(200, EMPTY_REPLY));
    web.enqueue(takingGzip(json(200, EMPTY_REPLY)));
    web.enqueue(json(200, EMPTY_REPLY));
    web.enqueue(json(200, EMPTY_REPLY));

    client.postBatch("d", batch);
    assertFalse(client.compressing());
    client.postBatch("d", batch);
    assertTrue(client.compressing());
    client.postBatch("d", batch);
    assertFalse(client.compressing(), "the latest answer did not announce gzip");
    client.postBatch("d", batch);

    String plain = Json.mapper().writeValueAsString(batch);
    RecordedRequest first = web.takeRequest();
    assertNull(first.getHeader("Content-Encoding"));
    assertEquals(plain, first.getBody().readUtf8());
    assertNull(web.takeRequest().getHeader("Content-Encoding"));
    RecordedRequest third = web.takeRequest();
    assertEquals("gzip", third.getHeader("Content-Encoding"));
    assertEquals(plain, gunzip(third));
    assertNull(web.takeRequest().getHeader("Content-Encoding"));
  }

  @Test
  void anAgentWithoutCompressionSendsPlainToAServerTakingGzip() throws Exception {
    SyncClient plain = new SyncClient(http, web.url("/").toString(), clock, false);
    web.enqueue(takingGzip(json(200, LOG_REPLY)));
    web.enqueue(takingGzip(json(200, EMPTY_REPLY)));
    plain.log("d");
    plain.postBatch("d", batch);
    assertFalse(plain.compressing());
    web.takeRequest();
    RecordedRequest sent = web.takeRequest();
    assertNull(sent.getHeader("Content-Encoding"));
    assertEquals(Json.mapper().writeValueAsString(batch), sent.getBody().readUtf8());
  }

  @Test
  void theWindowIsWhatTheLatestLogOrBatchAnswerAnnounced() throws Exception {
    web.enqueue(json(200, LOG_REPLY).setHeader(SyncClient.WINDOW_HEADER, "4"));
    web.enqueue(json(200, "{\"deviceId\":\"d\",\"from\":0,\"to\":0,\"outcomes\":[]}"));
    web.enqueue(json(200, EMPTY_REPLY).setHeader(SyncClient.WINDOW_HEADER, "2"));
    web.enqueue(problem(503, "redis-unavailable"));
    assertEquals(1, client.serverWindow(), "nothing announced yet");
    client.log("d");
    assertEquals(4, client.serverWindow());
    client.acks("d", 0, 0);
    assertEquals(4, client.serverWindow(), "acks answers do not announce the window");
    client.postBatch("d", batch);
    assertEquals(2, client.serverWindow());
    assertThrows(ServerProblemException.class, () -> client.postBatch("d", batch));
    assertEquals(1, client.serverWindow(), "an answer without the header: one at a time");
  }

  @Test
  void aWindowOutside1To16IsReadSafely() {
    assertEquals(1, SyncClient.windowOf(List.of()), "absent");
    assertEquals(1, SyncClient.windowOf(List.of("1")));
    assertEquals(16, SyncClient.windowOf(List.of("16")));
    assertEquals(16, SyncClient.windowOf(List.of("17")), "larger: the most an agent keeps");
    assertEquals(16, SyncClient.windowOf(List.of("999999999")));
    assertEquals(3, SyncClient.windowOf(List.of(" 3 ")));
    assertEquals(1, SyncClient.windowOf(List.of("0")), "zero");
    assertEquals(1, SyncClient.windowOf(List.of("-4")), "negative");
    assertEquals(1, SyncClient.windowOf(List.of("4.0")), "not an integer");
    assertEquals(1, SyncClient.windowOf(List.of("")), "empty");
    assertEquals(1, SyncClient.windowOf(List.of("99999999999999999999")), "overflowing");
    assertEquals(1, SyncClient.windowOf(List.of("4", "8")), "repeated");
  }

  @Test
  void theLogReadAtTheStartOfARunAnnouncesGzip() throws Exception {
    web.enqueue(takingGzip(json(200, LOG_REPLY)));
    web.enqueue(takingGzip(json(200, EMPTY_REPLY)));
    client.log("d");
    client.postBatch("d", batch);
    web.takeRequest();
    assertEquals("gzip", web.takeRequest().getHeader("Content-Encoding"));
  }

  @Test
  void aRefusedCodingSendsTheSameBatchPlainAtOnce() throws Exception {
    for (MockResponse refusal :
        List.of(
            problem(415, "unsupported-media-type"),
            problem(400, "malformed-json"),
            problem(400, "malformed-request"),
            new MockResponse().setResponseCode(400))) {
      web.enqueue(takingGzip(json(200, LOG_REPLY)));
      web.enqueue(refusal);
      web.enqueue(json(200, EMPTY_REPLY));
      client.log("d");
      client.postBatch("d", batch);
      web.takeRequest();
      RecordedRequest compressed = web.takeRequest();
      RecordedRequest plain = web.takeRequest();
      assertEquals("gzip", compressed.getHeader("Content-Encoding"));
      assertNull(plain.getHeader("Content-Encoding"), refusal.toString());
      assertEquals(compressed.getHeader(TraceParent.HEADER), plain.getHeader(TraceParent.HEADER));
      assertFalse(client.compressing());
    }
  }

  @Test
  void otherRefusalsOfACompressedBatchAreNotResent() throws Exception {
    web.enqueue(takingGzip(json(200, LOG_REPLY)));
    web.enqueue(takingGzip(problem(400, "invalid-field")));
    web.enqueue(takingGzip(problem(413, "body-too-large")));
    client.log("d");
    assertEquals(
        400,
        assertThrows(ServerProblemException.class, () -> client.postBatch("d", batch)).status());
    assertEquals(
        413,
        assertThrows(ServerProblemException.class, () -> client.postBatch("d", batch)).status());
    assertEquals(3, web.getRequestCount());
  }

  @Test
  void acceptEncodingIsReadAsRfc9110Lists() {
    assertTrue(SyncClient.takesGzip(List.of("gzip")));
    assertTrue(SyncClient.takesGzip(List.of("br, GZIP")));
    assertTrue(SyncClient.takesGzip(List.of("identity", "gzip;q=0.5")));
    assertTrue(SyncClient.takesGzip(List.of("gzip ; q=0.001")));
    assertFalse(SyncClient.takesGzip(List.of()));
    assertFalse(SyncClient.takesGzip(List.of("identity")));
    assertFalse(SyncClient.takesGzip(List.of("gzip;q=0")));
    assertFalse(SyncClient.takesGzip(List.of("gzip; q=0.000")));
    assertFalse(SyncClient.takesGzip(List.of("x-gzip2, deflate")));
  }

  static MockResponse takingBinary(MockResponse r) {
    return takingGzip(r).setHeader("Accept-Post", "application/json, " + BinaryBatch.MEDIA_TYPE);
  }

  static byte[] gunzipBytes(RecordedRequest req) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(req.getBody().inputStream())) {
      return in.readAllBytes();
    }
  }

  final BatchRequest twoRecords =
      new BatchRequest(
          5,
          List.of(
              new WireRecord(5, Base64.getEncoder().encodeToString(new byte[] {2, 7, 7})),
              new WireRecord(6, Base64.getEncoder().encodeToString(new byte[] {2, 8}))),
          "note",
          null);

  @Test
  void batchesGoBinaryInGzipWhileTheLogOrBatchAnswerNamesTheBinaryBody() throws Exception {
    web.enqueue(takingBinary(json(200, LOG_REPLY)));
    web.enqueue(takingBinary(json(200, EMPTY_REPLY)));
    web.enqueue(takingGzip(json(200, EMPTY_REPLY)));
    web.enqueue(takingGzip(json(200, EMPTY_REPLY)));
    client.log("d");
    client.postBatch("d", twoRecords);
    client.postBatch("d", twoRecords);
    client.postBatch("d", twoRecords);

    web.takeRequest();
    for (int i = 0; i < 2; i++) {
      RecordedRequest binary = web.takeRequest();
      assertEquals("gzip", binary.getHeader("Content-Encoding"));
      assertEquals(BinaryBatch.MEDIA_TYPE, binary.getHeader("Content-Type"));
      BinaryBatch.Parts parts = BinaryBatch.decode(gunzipBytes(binary), 10);
      assertEquals(
          Json.mapper().writeValueAsString(new BatchRequest(5, List.of(), "note", null)),
          new String(parts.head(), StandardCharsets.UTF_8));
      assertEquals(2, parts.records().size());
      assertArrayEquals(new byte[] {2, 7, 7}, parts.records().get(0));
      assertArrayEquals(new byte[] {2, 8}, parts.records().get(1));
    }
    RecordedRequest json = web.takeRequest();
    assertEquals("gzip", json.getHeader("Content-Encoding"));
    assertTrue(json.getHeader("Content-Type").startsWith("application/json"));
    assertEquals(Json.mapper().writeValueAsString(twoRecords), gunzip(json));
  }

  @Test
  void anAgentWithoutCompressionSendsPlainJsonToAServerTakingTheBinaryBody() throws Exception {
    SyncClient plain = new SyncClient(http, web.url("/").toString(), clock, false);
    web.enqueue(takingBinary(json(200, LOG_REPLY)));
    web.enqueue(takingBinary(json(200, EMPTY_REPLY)));
    plain.log("d");
    plain.postBatch("d", twoRecords);
    web.takeRequest();
    RecordedRequest sent = web.takeRequest();
    assertNull(sent.getHeader("Content-Encoding"));
    assertTrue(sent.getHeader("Content-Type").startsWith("application/json"));
    assertEquals(Json.mapper().writeValueAsString(twoRecords), sent.getBody().readUtf8());
  }

  @Test
  void aRefusedBinaryBatchGoesAgainAsPlainJsonAtOnce() throws Exception {
    for (MockResponse refusal :
        List.of(problem(415, "unsupported-media-type"), problem(400, "malformed-json"))) {
      web.enqueue(takingBinary(json(200, LOG_REPLY)));
      web.enqueue(refusal);
      web.enqueue(json(200, EMPTY_REPLY));
      client.log("d");
      client.postBatch("d", twoRecords);
      web.takeRequest();
      RecordedRequest binary = web.takeRequest();
      RecordedRequest plain = web.takeRequest();
      assertEquals(BinaryBatch.MEDIA_TYPE, binary.getHeader("Content-Type"));
      assertNull(plain.getHeader("Content-Encoding"), refusal.toString());
      assertEquals(Json.mapper().writeValueAsString(twoRecords), plain.getBody().readUtf8());
      assertFalse(client.compressing());
    }
  }

  @Test
  void acceptPostIsReadAsAListOfMediaTypes() {
    assertTrue(SyncClient.takesBinary(List.of(BinaryBatch.MEDIA_TYPE)));
    assertTrue(SyncClient.takesBinary(List.of("application/json, " + BinaryBatch.MEDIA_TYPE)));
    assertTrue(
        SyncClient.takesBinary(
            List.of("application/json", BinaryBatch.MEDIA_TYPE.toUpperCase() + " ; v=1")));
    assertFalse(SyncClient.takesBinary(List.of()));
    assertFalse(SyncClient.takesBinary(List.of("application/json")));
    assertFalse(SyncClient.takesBinary(List.of(BinaryBatch.MEDIA_TYPE + "2")));
  }
}
