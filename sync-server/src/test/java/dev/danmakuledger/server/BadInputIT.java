package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.WireRecord;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.testkit.TestDevice;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile and malformed batches (docs/errors.md): each gets a clear problem+json with a stable
 * code, nothing is written, and the server keeps serving.
 */
final class BadInputIT {
  static final int MAX_RECORDS = 5;
  static final long MAX_BODY = 16 * 1024;

  @TempDir static Path dir;
  static SyncServer server;
  static Api api;
  static TestDevice victim;
  static TestDevice other;
  static TestDevice quarantined;
  static String room = "bad-" + UUID.randomUUID().toString().substring(0, 8);

  long batchesBefore;

  @BeforeAll
  static void start() {
    server =
        SyncServer.start(
            ServerConfig.builder(dir)
                .maxRecordsPerBatch(MAX_RECORDS)
                .maxBodyBytes(MAX_BODY)
                .build());
    api = new Api(server.baseUri(), server.adminToken());
    victim = enroll("victim");
    other = enroll("other");
    quarantined = enroll("quarantined");
    assertEquals(
        200, api.post(path(victim), victim.batch(victim.record(room, "u1", "kept"))).status());
    assertEquals(
        200, api.post(path(other), other.batch(other.record(room, "u2", "theirs"))).status());
    TestDevice clone = quarantined.cloneDevice();
    assertEquals(
        200,
        api.post(path(quarantined), quarantined.batch(quarantined.record(room, "u3", "a")))
            .status());
    assertEquals(
        409, api.post(path(quarantined), clone.batch(clone.record(room, "u3", "b"))).status());
  }

  static TestDevice enroll(String id) {
    TestDevice d = TestDevice.create(id);
    api.enroll(d, server.enrollToken());
    return d;
  }

  static String path(TestDevice d) {
    return "/v1/devices/" + d.id + "/batches";
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @BeforeEach
  void count() {
    batchesBefore = api.admin("/admin/overview").as(Overview.class).batches();
  }

  @AfterEach
  void nothingWasWrittenAndTheServerStillServes() {
    assertEquals(1, api.get("/v1/devices/victim/log").as(LogState.class).verifiedSize());
    assertEquals(batchesBefore, api.admin("/admin/overview").as(Overview.class).batches());
    assertEquals(
        3, api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages().size());
    assertEquals(200, api.get("/healthz").status());
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] json(Object o) {
    try {
      return Api.JSON.writeValueAsBytes(o);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** An empty batch of the victim whose metadata carries {@code members} besides the counters. */
  static byte[] queueMetadata(String checkpoint, String members) {
    return utf8(
        "{\"oldSize\":1,\"records\":[],\"checkpoint\":"
            + Api.JSON.valueToTree(checkpoint)
            + ",\"metadata\":{\"bloomChecks\":1,\"bloomMaybe\":0,\"edgeDuplicates\":0,"
            + "\"bloomFalsePositives\":0,"
            + members
            + "}}");
  }

  static Stream<Arguments> cases() {
    String cp = victim.checkpoint();
    String wire = "{\"index\":1,\"canonical\":\"AAAA\"}";
    List<WireRecord> tooMany = new ArrayList<>();
    for (int i = 0; i <= MAX_RECORDS; i++) {
      tooMany.add(new WireRecord(1 + i, "AAAA"));
    }
    BatchRequest othersBatch = other.resend(0, 1);
    return Stream.of(
        Arguments.of("malformed-json", "victim", utf8("{\"oldSize\":1,"), 400, "malformed-json"),
        Arguments.of("not-json", "victim", utf8("hello"), 400, "malformed-json"),
        Arguments.of("empty-body", "victim", new byte[0], 400, "malformed-json"),
        Arguments.of("json-null", "victim", utf8("null"), 400, "malformed-json"),
        Arguments.of("json-array", "victim", utf8("[]"), 400, "malformed-json"),
        Arguments.of(
            "wrong-type-oldSize",
            "victim",
            utf8("{\"oldSize\":\"1\",\"records\":[],\"checkpoint\":\"x\"}"),
            400,
            "malformed-json"),
        Arguments.of(
            "wrong-type-records",
            "victim",
            utf8("{\"oldSize\":1,\"records\":{},\"checkpoint\":\"x\"}"),
            400,
            "malformed-json"),
        Arguments.of(
            "fractional-index",
            "victim",
            utf8(
                "{\"oldSize\":1,\"records\":[{\"index\":1.5,\"canonical\":\"AAAA\"}],\"checkpoint\":\"x\"}"),
            400,
            "malformed-json"),
        Arguments.of(
            "missing-checkpoint",
            "victim",
            utf8("{\"oldSize\":1,\"records\":[]}"),
            400,
            "malformed-json"),
        Arguments.of(
            "unknown-field",
            "victim",
            utf8("{\"oldSize\":1,\"records\":[],\"checkpoint\":\"x\",\"admin\":true}"),
            400,
            "malformed-json"),
        Arguments.of(
            "negative-oldSize",
            "victim",
            utf8("{\"oldSize\":-1,\"records\":[],\"checkpoint\":\"x\"}"),
            400,
            "malformed-json"),
        Arguments.of(
            "oversize-body", "victim", new byte[(int) MAX_BODY + 1], 413, "body-too-large"),
        Arguments.of(
            "too-many-records",
            "victim",
            json(new BatchRequest(1, tooMany, cp, null)),
            413,
            "too-many-records"),
        Arguments.of(
            "bad-base64",
            "victim",
            json(new BatchRequest(1, List.of(new WireRecord(1, "not base64!!")), cp, null)),
            400,
            "invalid-field"),
        Arguments.of(
            "index-gap",
            "victim",
            utf8(
                "{\"oldSize\":1,\"records\":["
                    + wire
                    + ",{\"index\":3,\"canonical\":\"AAAA\"}],\"checkpoint\":\"x\"}"),
            400,
            "invalid-field"),
        Arguments.of(
            "unknown-device",
            "nobody",
            json(new BatchRequest(0, List.of(), cp, null)),
            401,
            "unauthenticated"),
        Arguments.of(
            "malformed-device-id",
            "no%20body",
            json(new BatchRequest(0, List.of(), cp, null)),
            400,
            "invalid-field"),
        Arguments.of(
            "quarantined-device",
            "quarantined",
            json(new BatchRequest(1, List.of(), cp, null)),
            403,
            "device-quarantined"),
        Arguments.of(
            "checkpoint-of-another-device",
            "victim",
            json(new BatchRequest(1, List.of(), other.checkpoint(), null)),
            403,
            "bad-signature"),
        Arguments.of(
            "replay-of-another-devices-batch", "victim", json(othersBatch), 403, "bad-signature"),
        Arguments.of(
            "negative-oldest-unsynced",
            "victim",
            queueMetadata(cp, "\"oldestUnsyncedMillis\":-1"),
            400,
            "malformed-json"),
        Arguments.of(
            "negative-last-attempt-time",
            "victim",
            queueMetadata(cp, "\"lastAttempt\":{\"atMillis\":-1,\"outcome\":\"ok\"}"),
            400,
            "malformed-json"),
        Arguments.of(
            "oversized-last-attempt-outcome",
            "victim",
            queueMetadata(
                cp, "\"lastAttempt\":{\"atMillis\":1,\"outcome\":\"" + "a".repeat(1000) + "\"}"),
            400,
            "malformed-json"),
        Arguments.of(
            "markup-in-last-attempt-outcome",
            "victim",
            queueMetadata(cp, "\"lastAttempt\":{\"atMillis\":1,\"outcome\":\"<img src=x>\"}"),
            400,
            "malformed-json"),
        Arguments.of(
            "unknown-queue-member",
            "victim",
            queueMetadata(cp, "\"nextRetryMillis\":5"),
            400,
            "malformed-json"),
        Arguments.of(
            "garbage-checkpoint",
            "victim",
            json(new BatchRequest(1, List.of(), "not a note", null)),
            400,
            "invalid-field"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void refusedWithAClearProblem(String name, String device, byte[] body, int status, String code) {
    Api.Reply r = api.postRaw("/v1/devices/" + device + "/batches", body);
    assertEquals(status, r.status(), name + ": " + r);
    assertEquals(Problem.MEDIA_TYPE, r.contentType(), name);
    assertEquals(code, r.code(), name + ": " + r);
    assertTrue(r.json().path("detail").asText().length() > 10, name + ": " + r);
    assertEquals("https://danmaku-ledger.dev/problems/" + code, r.json().path("type").asText());
  }

  /**
   * A client that dies mid-upload: the body ends before its Content-Length. The server answers 400
   * (to whoever still listens on the half-closed connection), never a 5xx, and keeps nothing.
   */
  @Test
  void aBodyCutShortIsABadRequestNotAServerError() throws Exception {
    byte[] body = json(new BatchRequest(1, List.of(), victim.checkpoint(), null));
    String head =
        "POST "
            + path(victim)
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: "
            + body.length
            + "\r\n\r\n";
    try (Socket s = new Socket(server.baseUri().getHost(), server.baseUri().getPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(body, 0, body.length / 2);
      out.flush();
      s.shutdownOutput();
      String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(reply.startsWith("HTTP/1.1 400 "), reply);
      assertTrue(reply.contains("\"code\":\"malformed-json\""), reply);
      assertTrue(reply.contains("resend the whole request"), reply);
    }
  }
}
