package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.admin.DeviceList;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.protocol.wire.admin.ReviewDecision;
import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import dev.danmakuledger.protocol.wire.admin.ReviewQueue;
import dev.danmakuledger.testkit.TestDevice;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests from clients that hold no credentials, or abuse the ones they have, against a live
 * server (embedded Redis and H2): they are counted, never trusted, and change nothing they may not
 * change (docs/security.md).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class HostileClientsIT {
  static final int DEVICE_LIMIT = 4;
  static final Duration WINDOW = Duration.ofMinutes(5);

  final MutableClock clock = MutableClock.running();
  SyncServer server;
  Api api;
  Api anonymous;

  @BeforeAll
  void start(@TempDir Path dir) {
    server =
        SyncServer.start(
            ServerConfig.builder(dir)
                .bannedWords(List.of("forbidden"))
                .attemptWindow(WINDOW)
                .maxBadSignaturesPerDevice(DEVICE_LIMIT)
                .clock(clock)
                .build());
    api = new Api(server.baseUri(), server.adminToken());
    anonymous = new Api(server.baseUri(), "not-the-admin-token");
  }

  @AfterAll
  void stop() {
    server.close();
  }

  static String room() {
    return "room-" + UUID.randomUUID().toString().substring(0, 8);
  }

  TestDevice enrolledDevice() {
    return api.enrollNew(server.enrollToken());
  }

  BatchResponse sync(TestDevice d, BatchRequest batch) {
    return api.sync(d, batch);
  }

  /** A batch for {@code d} whose checkpoint is signed by a key nobody enrolled. */
  static BatchRequest forged(TestDevice d) {
    NoteSigner stranger = NoteSigner.generate(DeviceLog.origin(d.id), new SecureRandom());
    String note =
        Checkpoints.sign(new Checkpoint(DeviceLog.origin(d.id), 1, new byte[32]), stranger);
    return new BatchRequest(0, List.of(), note, null);
  }

  List<JsonNode> badSignatureAlerts(String deviceId) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode a : api.admin("/admin/alerts").json().get("alerts")) {
      if (deviceId.equals(a.path("deviceId").asText())
          && "BAD_SIGNATURE".equals(a.path("data").path("kind").asText())) {
        out.add(a);
      }
    }
    return out;
  }

  DeviceSummary summary(String deviceId) {
    return api.admin("/admin/devices").as(DeviceList.class).devices().stream()
        .filter(s -> s.deviceId().equals(deviceId))
        .findFirst()
        .orElseThrow();
  }

  // ------------------------------------------------------------ forged checkpoints

  @Test
  void forgedCheckpointsRaiseOneAlertPerDevicePerWindowCarryingTheCount() {
    TestDevice d = enrolledDevice();
    for (int i = 0; i < 3; i++) {
      Api.Reply r = anonymous.post("/v1/devices/" + d.id + "/batches", forged(d));
      assertEquals(403, r.status(), r.toString());
      assertEquals("bad-signature", r.code());
    }
    List<JsonNode> alerts = badSignatureAlerts(d.id);
    assertEquals(1, alerts.size(), alerts.toString());
    assertEquals(3, alerts.get(0).path("data").path("count").asLong(), alerts.toString());

    clock.advance(WINDOW.plusSeconds(1));
    assertEquals(403, anonymous.post("/v1/devices/" + d.id + "/batches", forged(d)).status());
    alerts = badSignatureAlerts(d.id);
    assertEquals(2, alerts.size(), alerts.toString());
    assertEquals(1, alerts.get(0).path("data").path("count").asLong(), alerts.toString());
  }

  @Test
  void forgedCheckpointsNeverChangeTheDeviceStatusAndAreCountedBesideIt() {
    TestDevice d = enrolledDevice();
    sync(d, d.batch(d.record(room(), "u1", "genuine")));
    assertEquals(DeviceSummary.Status.VERIFIED, summary(d.id).status());
    for (int i = 0; i < 2; i++) {
      assertEquals(403, anonymous.post("/v1/devices/" + d.id + "/batches", forged(d)).status());
    }
    DeviceSummary s = summary(d.id);
    assertEquals(DeviceSummary.Status.VERIFIED, s.status());
    assertEquals(2, s.badSignatureAttempts());
    assertEquals(1, s.verifiedSize());
  }

  @Test
  void forgedCheckpointsBeyondTheDeviceLimitAre429AndTheGenuineDeviceStillSyncs() {
    TestDevice d = enrolledDevice();
    long before = api.admin("/admin/overview").as(Overview.class).signatureFailures();
    for (int i = 0; i < DEVICE_LIMIT; i++) {
      assertEquals(403, anonymous.post("/v1/devices/" + d.id + "/batches", forged(d)).status());
    }
    Api.Reply limited = anonymous.post("/v1/devices/" + d.id + "/batches", forged(d));
    assertEquals(429, limited.status(), limited.toString());
    assertEquals("rate-limited", limited.code());
    assertEquals(Problem.MEDIA_TYPE, limited.contentType());
    assertNotNull(limited.retryAfter());
    assertTrue(Long.parseLong(limited.retryAfter()) > 0, limited.retryAfter());
    assertEquals(DEVICE_LIMIT, summary(d.id).badSignatureAttempts());
    assertEquals(
        before + DEVICE_LIMIT, api.admin("/admin/overview").as(Overview.class).signatureFailures());

    BatchResponse ok = sync(d, d.batch(d.record(room(), "u1", "still here")));
    assertEquals(1, ok.verifiedSize());
    assertEquals(DeviceSummary.Status.VERIFIED, summary(d.id).status());
  }

  // ------------------------------------------------------------ what public reads show

  @Test
  void publicReadsShowHeldAndRejectedSlotsWithoutTheirContent() {
    TestDevice d = enrolledDevice();
    String room = room();
    DanmakuRecord ok = d.record(room, "u1", "hello");
    DanmakuRecord held = d.record(room, "u2", "see https://x.example/secret");
    DanmakuRecord banned = d.record(room, "u3", "this is FORBIDDEN");
    sync(d, d.batch(ok, held, banned));

    List<RoomMessage> page =
        anonymous.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages();
    assertEquals(List.of(1L, 2L, 3L), page.stream().map(RoomMessage::seq).toList());
    assertEquals("hello", page.get(0).text());
    for (RoomMessage m : page.subList(1, 3)) {
      assertNull(m.text(), m.toString());
      assertNull(m.user(), m.toString());
      assertNull(m.idempotencyKey(), m.toString());
      assertNull(m.deviceId(), m.toString());
      assertNull(m.deviceIndex(), m.toString());
    }
    assertEquals(RoomMessage.Status.PENDING, page.get(1).status());
    assertEquals(RoomMessage.Status.REJECTED, page.get(2).status());
    assertNull(anonymous.get("/v1/rooms/" + room + "/messages/2").as(RoomMessage.class).text());
    assertNull(anonymous.get("/v1/messages/" + held.key()).as(RoomMessage.class).text());
    String heldId = page.get(1).messageId();
    assertNull(anonymous.get("/v1/messages/by-id/" + heldId).as(RoomMessage.class).text());

    RoomMessage asOperator = api.admin("/v1/rooms/" + room + "/messages/2").as(RoomMessage.class);
    assertEquals("see https://x.example/secret", asOperator.text());
  }

  @Test
  void proofsOfHeldRecordsNeedTheAdminToken() {
    TestDevice d = enrolledDevice();
    String room = room();
    sync(d, d.batch(d.record(room, "u1", "fine"), d.record(room, "u1", "https://x.example")));
    String proof = "/v1/devices/" + d.id + "/proofs/inclusion?index=";
    Api.Reply confirmed = anonymous.get(proof + 0);
    assertEquals(200, confirmed.status(), confirmed.toString());
    assertNotNull(confirmed.as(InclusionProofResponse.class).canonical());
    Api.Reply held = anonymous.get(proof + 1);
    assertEquals(401, held.status(), held.toString());
    assertEquals("unauthenticated", held.code());
    assertTrue(!held.body().contains("x.example"), held.body());
    Api.Reply operator = api.admin(proof + 1);
    assertEquals(200, operator.status(), operator.toString());
    assertNotNull(operator.as(InclusionProofResponse.class).canonical());
  }

  // ------------------------------------------------------------ moderation on folded text

  @Test
  void fullwidthAndSoftHyphenatedLinksAreHeldAndDisguisedBannedWordsRejected() {
    TestDevice d = enrolledDevice();
    String room = room();
    BatchResponse r =
        sync(
            d,
            d.batch(
                d.record(room, "u1", "ｈｔｔｐｓ：／／evil.example"),
                d.record(room, "u1", "http\u00ad://evil.example"),
                d.record(room, "u1", "FOR\u00adBIDDEN"),
                d.record(room, "u1", "ｆｏｒｂｉｄｄｅｎ")));
    List<Outcome> outcomes = r.outcomes().stream().map(o -> o.outcome()).toList();
    assertEquals(
        List.of(Outcome.PENDING, Outcome.PENDING, Outcome.REJECTED, Outcome.REJECTED), outcomes);
    assertEquals("banned-word", r.outcomes().get(2).reason());
    assertEquals("banned-word", r.outcomes().get(3).reason());
  }

  @Test
  void aRecordWithAZeroWidthSpaceIsRejectedAndNeverBroadcast() {
    TestDevice d = enrolledDevice();
    String room = room();
    byte[] plain = d.record(room, "u1", "http_://evil.example").canonicalBytes();
    byte[] hidden = replaceText(plain, "http_://evil.example", "http\u200b://evil.example");
    BatchResponse r = sync(d, d.batchOfBytes(List.of(hidden)));
    assertEquals(Outcome.REJECTED, r.outcomes().get(0).outcome());
    assertEquals("invalid-text", r.outcomes().get(0).reason());
    assertEquals(
        List.of(), anonymous.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages());
  }

  /**
   * The canonical bytes with the length-prefixed UTF-8 text replaced (docs/canonical-record.md).
   */
  static byte[] replaceText(byte[] canonical, String from, String to) {
    byte[] old = lengthPrefixed(from);
    byte[] now = lengthPrefixed(to);
    for (int i = 0; i + old.length <= canonical.length; i++) {
      if (java.util.Arrays.equals(canonical, i, i + old.length, old, 0, old.length)) {
        byte[] out = new byte[canonical.length - old.length + now.length];
        System.arraycopy(canonical, 0, out, 0, i);
        System.arraycopy(now, 0, out, i, now.length);
        System.arraycopy(
            canonical, i + old.length, out, i + now.length, canonical.length - i - old.length);
        return out;
      }
    }
    throw new IllegalArgumentException("text " + from + " not found in the canonical bytes");
  }

  private static byte[] lengthPrefixed(String text) {
    byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return java.nio.ByteBuffer.allocate(4 + utf8.length).putInt(utf8.length).put(utf8).array();
  }

  // ------------------------------------------------------------ resumed streams

  @Test
  void aResumedStreamDeliversMessagesApprovedSinceItsLastEventId() throws Exception {
    TestDevice d = enrolledDevice();
    String room = room();
    BatchResponse r =
        sync(
            d,
            d.batch(
                d.record(room, "u1", "one"),
                d.record(room, "u1", "two https://x.example"),
                d.record(room, "u1", "three")));
    LinkedBlockingQueue<String[]> events = new LinkedBlockingQueue<>();
    HttpResponse<Stream<String>> first = stream(room, null, events);
    String[] e1 = events.poll(30, TimeUnit.SECONDS);
    String[] e3 = events.poll(30, TimeUnit.SECONDS);
    assertEquals("one", Api.JSON.readTree(e1[1]).get("text").asText());
    assertEquals("three", Api.JSON.readTree(e3[1]).get("text").asText());
    first.body().close();

    ReviewItem item =
        api.admin("/admin/review").as(ReviewQueue.class).items().stream()
            .filter(i -> i.messageId().equals(r.outcomes().get(1).messageId()))
            .findFirst()
            .orElseThrow();
    Api.Reply approved =
        api.adminPost(
            "/admin/review/" + item.messageId(),
            new ReviewDecision("APPROVE", item.version(), null));
    assertEquals(200, approved.status(), approved.toString());

    LinkedBlockingQueue<String[]> resumedEvents = new LinkedBlockingQueue<>();
    HttpResponse<Stream<String>> resumed = stream(room, e3[0], resumedEvents);
    String[] e2 = resumedEvents.poll(30, TimeUnit.SECONDS);
    assertNotNull(e2, "the approved message was not delivered on resume");
    JsonNode two = Api.JSON.readTree(e2[1]);
    assertEquals(2, two.get("seq").asLong());
    assertEquals("two https://x.example", two.get("text").asText());
    sync(d, d.batch(d.record(room, "u1", "four")));
    String[] e4 = resumedEvents.poll(30, TimeUnit.SECONDS);
    assertEquals(4, Api.JSON.readTree(e4[1]).get("seq").asLong());
    assertNull(resumedEvents.poll(500, TimeUnit.MILLISECONDS), "delivered twice");
    resumed.body().close();

    LinkedBlockingQueue<String[]> again = new LinkedBlockingQueue<>();
    HttpResponse<Stream<String>> third = stream(room, e2[0], again);
    assertEquals(4, Api.JSON.readTree(again.poll(30, TimeUnit.SECONDS)[1]).get("seq").asLong());
    assertNull(again.poll(500, TimeUnit.MILLISECONDS), "delivered twice");
    third.body().close();
  }

  /** Opens a room stream; each event arrives as {id, data}. */
  HttpResponse<Stream<String>> stream(
      String room, String lastEventId, LinkedBlockingQueue<String[]> events) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(api.base().resolve("/v1/rooms/" + room + "/stream"))
            .header("Accept", "text/event-stream");
    if (lastEventId != null) {
      b.header("Last-Event-ID", lastEventId);
    }
    HttpResponse<Stream<String>> resp =
        api.client()
            .sendAsync(b.build(), HttpResponse.BodyHandlers.ofLines())
            .get(30, TimeUnit.SECONDS);
    Thread reader =
        new Thread(
            () -> {
              String[] id = {null};
              try {
                resp.body()
                    .forEach(
                        l -> {
                          if (l.startsWith("id:")) {
                            id[0] = l.substring(3).strip();
                          } else if (l.startsWith("data:")) {
                            events.add(new String[] {id[0], l.substring(5).strip()});
                          }
                        });
              } catch (UncheckedIOException closed) {
                // the test closed the stream
              }
            });
    reader.setDaemon(true);
    reader.start();
    return resp;
  }

  // ------------------------------------------------------------ column limits and keys

  @Test
  void enrolmentWithAnInvalidEd25519KeyIs400() {
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    byte[] nonCanonical = new byte[32];
    java.util.Arrays.fill(nonCanonical, (byte) 0xFF);
    nonCanonical[31] = 0x7F;
    for (byte[] key : List.of(new byte[32], nonCanonical, smallOrderPoint())) {
      Api.Reply r =
          api.post(
              "/v1/devices",
              new EnrollRequest(
                  "k-" + UUID.randomUUID().toString().substring(0, 8),
                  Base64.getEncoder().encodeToString(key),
                  server.enrollToken()));
      assertEquals(400, r.status(), r.toString());
      assertEquals("invalid-field", r.code());
      assertTrue(r.json().path("detail").asText().contains("publicKey"), r.toString());
    }
    int refusedRandom = 0;
    for (int i = 0; i < 20; i++) {
      new SecureRandom().nextBytes(random);
      Api.Reply r =
          api.post(
              "/v1/devices",
              new EnrollRequest(
                  "r-" + UUID.randomUUID().toString().substring(0, 8),
                  Base64.getEncoder().encodeToString(random),
                  server.enrollToken()));
      assertTrue(r.status() == 200 || r.status() == 400, r.toString());
      refusedRandom += r.status() == 400 ? 1 : 0;
    }
    assertTrue(refusedRandom > 0, "about half of random strings are not on the curve");
  }

  /** The encoding of the point of order 2, (0, -1). */
  static byte[] smallOrderPoint() {
    byte[] p = new byte[32];
    p[0] = (byte) 0xEC;
    for (int i = 1; i < 31; i++) {
      p[i] = (byte) 0xFF;
    }
    p[31] = 0x7F;
    return p;
  }

  @Test
  void reviewReasonsUpToTheColumnSizeAreStoredAndLongerOnesAre400() {
    TestDevice d = enrolledDevice();
    String room = room();
    BatchResponse r =
        sync(
            d,
            d.batch(d.record(room, "u1", "a https://x.example"), d.record(room, "u1", "b www.x")));
    Map<String, ReviewItem> items = new java.util.HashMap<>();
    for (ReviewItem i : api.admin("/admin/review").as(ReviewQueue.class).items()) {
      items.put(i.messageId(), i);
    }
    ReviewItem first = items.get(r.outcomes().get(0).messageId());
    ReviewItem second = items.get(r.outcomes().get(1).messageId());
    long rejectsBefore = operatorRejects();

    Api.Reply tooLong =
        api.adminPost(
            "/admin/review/" + second.messageId(),
            new ReviewDecision("REJECT", second.version(), "x".repeat(300)));
    assertEquals(400, tooLong.status(), tooLong.toString());
    assertEquals("invalid-field", tooLong.code());
    assertEquals(
        RoomMessage.Status.PENDING,
        api.admin("/v1/messages/by-id/" + second.messageId()).as(RoomMessage.class).status());

    Api.Reply ok =
        api.adminPost(
            "/admin/review/" + first.messageId(),
            new ReviewDecision("REJECT", first.version(), "y".repeat(200)));
    assertEquals(200, ok.status(), ok.toString());
    assertEquals(
        RoomMessage.Status.REJECTED,
        api.admin("/v1/messages/by-id/" + first.messageId()).as(RoomMessage.class).status());
    assertEquals(rejectsBefore + 1, operatorRejects());
  }

  long operatorRejects() {
    return api.admin("/admin/overview")
        .as(Overview.class)
        .rejectsByReason()
        .getOrDefault("operator", 0L);
  }

  @Test
  void hostileReviewAndEnrolmentBodiesAre400AndChangeNothing() {
    TestDevice d = enrolledDevice();
    BatchResponse r = sync(d, d.batch(d.record(room(), "u1", "held www.x.example")));
    String id = r.outcomes().get(0).messageId();
    String review = "/admin/review/" + id;
    List<String> bodies =
        List.of(
            "{\"decision\":\"REJECT\",\"version\":0,\"reason\":\"two\\nlines\"}",
            "{\"decision\":\"APPROVEE\",\"version\":0,\"reason\":null}",
            "{\"decision\":\"APPROVE\",\"version\":-1,\"reason\":null}",
            "{\"decision\":\"APPROVE\",\"version\":\"0\",\"reason\":null}",
            "{\"decision\":\"REJECT\",\"version\":0,\"reason\":\"" + "\u0101".repeat(256) + "\"}",
            "not json");
    for (String body : bodies) {
      Api.Reply reply =
          api.adminPostRaw(review, body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      assertEquals(400, reply.status(), body + " -> " + reply);
      assertEquals(Problem.MEDIA_TYPE, reply.contentType(), body);
    }
    assertEquals(
        RoomMessage.Status.PENDING,
        api.admin("/v1/messages/by-id/" + id).as(RoomMessage.class).status());

    String key = Base64.getEncoder().encodeToString(d.signer.publicKey());
    List<EnrollRequest> enrolments =
        List.of(
            new EnrollRequest("x-" + d.id, key, "t".repeat(10_000)),
            new EnrollRequest("x-" + d.id, "not base64!", server.enrollToken()),
            new EnrollRequest(
                "x-" + d.id,
                Base64.getEncoder().encodeToString(new byte[31]),
                server.enrollToken()),
            new EnrollRequest("bad id", key, server.enrollToken()));
    for (EnrollRequest e : enrolments) {
      Api.Reply reply = api.post("/v1/devices", e);
      assertEquals(400, reply.status(), e + " -> " + reply);
      assertEquals("invalid-field", reply.code(), reply.toString());
    }
    assertTrue(
        api.admin("/admin/devices").as(DeviceList.class).devices().stream()
            .noneMatch(s -> s.deviceId().equals("x-" + d.id)));
  }

  @Test
  void aStreamWithAMalformedLastEventIdIs400BeforeTheStreamOpens() throws Exception {
    HttpResponse<String> r =
        api.client()
            .send(
                HttpRequest.newBuilder(api.base().resolve("/v1/rooms/" + room() + "/stream"))
                    .header("Accept", "text/event-stream")
                    .header("Last-Event-ID", "not-a-number")
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(400, r.statusCode(), r.body());
    assertEquals(Problem.MEDIA_TYPE, r.headers().firstValue("Content-Type").orElse(""));
    JsonNode problem = Api.JSON.readTree(r.body());
    assertEquals("invalid-field", problem.get("code").asText());
    assertTrue(problem.get("detail").asText().contains("Last-Event-ID"), r.body());
  }

  @Test
  void concurrentConfirmationsReachAStreamOnceEachInCursorOrder() throws Exception {
    String room = room();
    List<TestDevice> devices = List.of(enrolledDevice(), enrolledDevice(), enrolledDevice());
    LinkedBlockingQueue<String[]> events = new LinkedBlockingQueue<>();
    HttpResponse<Stream<String>> s = stream(room, "0", events);
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(3);
    try {
      List<java.util.concurrent.Future<?>> work = new ArrayList<>();
      for (TestDevice d : devices) {
        work.add(
            pool.submit(
                () -> {
                  for (int b = 0; b < 4; b++) {
                    sync(d, d.batch(d.record(room, "u", "m" + b), d.record(room, "u", "n" + b)));
                  }
                }));
      }
      for (java.util.concurrent.Future<?> f : work) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    List<Long> ids = new ArrayList<>();
    java.util.Set<Long> seqs = new java.util.HashSet<>();
    for (int i = 0; i < 24; i++) {
      String[] e = events.poll(30, TimeUnit.SECONDS);
      assertNotNull(e, "event " + i);
      ids.add(Long.parseLong(e[0]));
      assertTrue(seqs.add(Api.JSON.readTree(e[1]).get("seq").asLong()), "seq twice: " + e[1]);
    }
    assertEquals(java.util.stream.LongStream.rangeClosed(1, 24).boxed().toList(), ids);
    assertNull(events.poll(500, TimeUnit.MILLISECONDS), "delivered twice");
    s.body().close();
  }

  @Test
  void aCheckpointLongerThanItsColumnIs400AndNothingIsStored() {
    TestDevice d = enrolledDevice();
    BatchRequest b = d.batch(d.record(room(), "u1", "x"));
    StringBuilder note = new StringBuilder(b.checkpoint());
    while (note.length() <= 2048) {
      note.append("\u2014 other-witness ")
          .append(Base64.getEncoder().encodeToString(new byte[68]))
          .append('\n');
    }
    Api.Reply r = api.batch(d, new BatchRequest(b.oldSize(), b.records(), note.toString(), null));
    assertEquals(400, r.status(), r.toString());
    assertEquals("invalid-field", r.code());
    assertEquals(0, summary(d.id).verifiedSize());
  }
}
