package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureVerifier;
import dev.danmakuledger.merkle.checkpoint.Cosignatures;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.ConsistencyProof;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.AcksResponse;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.ConsistencyProofResponse;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.admin.DeviceList;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.protocol.wire.admin.ReviewDecision;
import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import dev.danmakuledger.protocol.wire.admin.ReviewQueue;
import dev.danmakuledger.protocol.wire.admin.RoomList;
import dev.danmakuledger.testkit.TestDevice;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync protocol end to end over real sockets (docs/sync-server.md): outcomes, receipts,
 * replays, duplicates, conflicts, moderation and review, forks, proofs, lookups, concurrency and
 * the SSE streams. One suite, run against every storage backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SyncProtocolContract {
  static final HexFormat HEX = HexFormat.of();

  final MutableClock clock = MutableClock.running();
  SyncServer server;
  Api api;

  /** Points the server at the backend under test. */
  abstract ServerConfig.Builder backend(ServerConfig.Builder builder) throws Exception;

  /** Releases what {@link #backend} created. */
  void dropBackend() throws Exception {}

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    server =
        SyncServer.start(
            backend(ServerConfig.builder(dir).bannedWords(List.of("forbidden")).clock(clock))
                .build());
    api = new Api(server.baseUri(), server.adminToken());
  }

  @AfterAll
  void stop() throws Exception {
    server.close();
    dropBackend();
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

  @Test
  void aReceiptCarriesTheNoteSignatureUnlessTheAgentNamesThisServersCosignerKey() throws Exception {
    TestDevice d = enrolledDevice();
    String room = room();
    String origin = DeviceLog.origin(d.id);
    NoteVerifier firstKey = NoteVerifier.parse(server.serverVerifierKey());
    CosignatureVerifier cosigner = CosignatureVerifier.parse(server.cosignerVerifierKey());

    // no header: both signatures, as agents enrolled before cosigned receipts need
    String both = sync(d, d.batch(d.record(room, "u1", "a"))).receipt();
    assertEquals(1, Cosignatures.open(both, origin, cosigner).checkpoint().size());
    assertEquals(1, Checkpoints.open(both, origin, firstKey).size());

    // this server's cosigner key: the cosignature alone, and the log shows that receipt
    Api.Reply one = api.batch(d, d.batch(d.record(room, "u2", "b")), cosigner.keyId());
    assertEquals(200, one.status(), one.toString());
    String cosigned = one.as(BatchResponse.class).receipt();
    assertEquals(2, Cosignatures.open(cosigned, origin, cosigner).checkpoint().size());
    assertEquals(2, Checkpoints.open(cosigned, origin, d.signer.verifier()).size());
    assertThrows(
        NoteVerificationException.class, () -> Checkpoints.open(cosigned, origin, firstKey));
    assertEquals(cosigned, api.get("/v1/devices/" + d.id + "/log").as(LogState.class).receipt());

    // another cosigner key, or anything else: both; the header is never refused
    long size = 2;
    for (String value :
        List.of(
            "",
            "cosignature",
            cosigner.keyId().replace("+", "+0"),
            cosigner.verifierKey(),
            "x,".repeat(1_500) + "y")) {
      Api.Reply r = api.batch(d, d.batch(d.record(room, "u" + size, "m" + size)), value);
      assertEquals(200, r.status(), value + ": " + r);
      size++;
      assertEquals(
          size, Checkpoints.open(r.as(BatchResponse.class).receipt(), origin, firstKey).size());
    }
  }

  @Test
  void newRecordsAreConfirmedInOrderWithAReceiptCoveringThem() throws Exception {
    TestDevice d = enrolledDevice();
    String room = room();
    BatchResponse resp =
        sync(
            d,
            d.batch(
                d.record(room, "u1", "你好 🎉"),
                d.record(room, "u2", "b"),
                d.record(room, "u1", "c")));
    assertEquals(
        List.of(Outcome.CONFIRMED, Outcome.CONFIRMED, Outcome.CONFIRMED),
        resp.outcomes().stream().map(RecordOutcome::outcome).toList());
    assertEquals(List.of(1L, 2L, 3L), resp.outcomes().stream().map(RecordOutcome::seq).toList());
    assertEquals(3, resp.verifiedSize());
    assertEquals(HEX.formatHex(d.root()), resp.rootHex());

    String origin = DeviceLog.origin(d.id);
    Checkpoint byServer =
        Checkpoints.open(resp.receipt(), origin, NoteVerifier.parse(server.serverVerifierKey()));
    Checkpoint byDevice = Checkpoints.open(resp.receipt(), origin, d.signer.verifier());
    assertEquals(3, byServer.size());
    assertEquals(byDevice, byServer);

    LogState log = api.get("/v1/devices/" + d.id + "/log").as(LogState.class);
    assertEquals(3, log.verifiedSize());
    assertEquals(resp.receipt(), log.receipt());
    assertEquals(LogState.Status.VERIFIED, log.status());

    RoomMessage first = api.get("/v1/rooms/" + room + "/messages/1").as(RoomMessage.class);
    assertEquals("你好 🎉", first.text());
    assertEquals(d.id, first.deviceId());
    assertEquals(0L, first.deviceIndex());
  }

  @Test
  void resendAfterALostReplyReturnsTheStoredOutcomesAndStoresNothingTwice() {
    TestDevice d = enrolledDevice();
    String room = room();
    BatchRequest batch = d.batch(d.record(room, "u1", "a"), d.record(room, "u1", "b"));
    BatchResponse first = sync(d, batch);
    Api.Reply again = api.batch(d, batch);
    assertEquals(200, again.status(), again.toString());
    assertEquals("true", again.replayed());
    assertEquals(first.outcomes(), again.as(BatchResponse.class).outcomes());
    assertNull(sync(d, d.batch(d.record(room, "u1", "c"))).outcomes().get(0).originalStatus());
    RoomPage page = api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class);
    assertEquals(List.of(1L, 2L, 3L), page.messages().stream().map(RoomMessage::seq).toList());
  }

  @Test
  void aRepeatedKeyIsADuplicateWithTheOriginalSeqAndIdEvenInTheSameBatch() {
    TestDevice d = enrolledDevice();
    String room = room();
    DanmakuRecord original = d.record(room, "u1", "hello");
    BatchResponse first = sync(d, d.batch(original, d.again(original)));
    RecordOutcome o = first.outcomes().get(0);
    RecordOutcome dup = first.outcomes().get(1);
    assertEquals(Outcome.CONFIRMED, o.outcome());
    assertEquals(Outcome.DUPLICATE, dup.outcome());
    assertEquals(o.seq(), dup.seq());
    assertEquals(o.messageId(), dup.messageId());
    assertEquals("CONFIRMED", dup.originalStatus());

    Overview before = api.admin("/admin/overview").as(Overview.class);
    RecordOutcome later = sync(d, d.batch(d.again(original))).outcomes().get(0);
    assertEquals(Outcome.DUPLICATE, later.outcome());
    assertEquals(o.seq(), later.seq());
    assertEquals(o.messageId(), later.messageId());
    Overview after = api.admin("/admin/overview").as(Overview.class);
    assertEquals(before.duplicates().redis() + 1, after.duplicates().redis());
    assertEquals(
        1, api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages().size());
  }

  @Test
  void sameKeyWithOtherContentIsAConflictNamingTheOriginal() {
    TestDevice d = enrolledDevice();
    String room = room();
    DanmakuRecord original = d.record(room, "u1", "first text");
    RecordOutcome o = sync(d, d.batch(original)).outcomes().get(0);
    RecordOutcome c = sync(d, d.batch(d.conflicting(original, "other text"))).outcomes().get(0);
    assertEquals(Outcome.CONFLICT, c.outcome());
    assertEquals(o.seq(), c.seq());
    assertEquals(o.messageId(), c.messageId());
    assertNotNull(c.reason());
    assertEquals(
        "first text", api.get("/v1/messages/" + original.key()).as(RoomMessage.class).text());
  }

  @Test
  void aKeyReusedInAnotherRoomIsAConflictAndThatRoomsNumberBecomesATombstone() {
    TestDevice d = enrolledDevice();
    String first = room();
    String second = room();
    DanmakuRecord original = d.record(first, "u1", "posted once");
    RecordOutcome o = sync(d, d.batch(original)).outcomes().get(0);
    BatchResponse again =
        sync(d, d.batch(d.inRoom(original, second), d.record(second, "u1", "next")));
    RecordOutcome c = again.outcomes().get(0);
    assertEquals(Outcome.CONFLICT, c.outcome());
    assertEquals(o.seq(), c.seq());
    assertEquals(o.messageId(), c.messageId());
    List<RoomMessage> slots =
        api.get("/v1/rooms/" + second + "/messages").as(RoomPage.class).messages();
    assertEquals(List.of(1L, 2L), slots.stream().map(RoomMessage::seq).toList());
    assertEquals(
        List.of(RoomMessage.Status.TOMBSTONE, RoomMessage.Status.CONFIRMED),
        slots.stream().map(RoomMessage::status).toList());
    assertEquals(first, api.get("/v1/messages/" + original.key()).as(RoomMessage.class).room());
  }

  @Test
  void bannedWordsAreRejectedLinksWaitForReviewAndReviewIsCompareAndSet() {
    TestDevice d = enrolledDevice();
    String room = room();
    BatchResponse resp =
        sync(
            d,
            d.batch(
                d.record(room, "u1", "this is FORBIDDEN"),
                d.record(room, "u1", "see https://x.example/a")));
    RecordOutcome rejected = resp.outcomes().get(0);
    RecordOutcome pending = resp.outcomes().get(1);
    assertEquals(Outcome.REJECTED, rejected.outcome());
    assertEquals("banned-word", rejected.reason());
    assertEquals(Outcome.PENDING, pending.outcome());

    ReviewQueue queue = api.admin("/admin/review").as(ReviewQueue.class);
    ReviewItem item =
        queue.items().stream()
            .filter(i -> i.messageId().equals(pending.messageId()))
            .findFirst()
            .orElseThrow();
    Api.Reply ok =
        api.adminPost(
            "/admin/review/" + item.messageId(),
            new ReviewDecision("APPROVE", item.version(), null));
    assertEquals(200, ok.status(), ok.toString());
    assertEquals(item.version() + 1, ok.as(ReviewItem.class).version());
    Api.Reply stale =
        api.adminPost(
            "/admin/review/" + item.messageId(), new ReviewDecision("REJECT", item.version(), "x"));
    assertEquals(409, stale.status(), stale.toString());
    assertEquals("version-conflict", stale.code());
    assertEquals(
        RoomMessage.Status.CONFIRMED,
        api.get("/v1/messages/by-id/" + pending.messageId()).as(RoomMessage.class).status());
    Api.Reply missing =
        api.adminPost("/admin/review/999999", new ReviewDecision("APPROVE", 0, null));
    assertEquals(404, missing.status());
  }

  @Test
  void aBatchNotStartingAtTheVerifiedSizeGets409WithTheServerSize() {
    TestDevice d = enrolledDevice();
    String room = room();
    sync(d, d.batch(d.record(room, "u1", "a")));
    d.batch(d.record(room, "u1", "lost on the way"));
    Api.Reply r = api.batch(d, d.batch(d.record(room, "u1", "c")));
    assertEquals(409, r.status(), r.toString());
    assertEquals("size-mismatch", r.code());
    assertEquals(1, r.json().get("verifiedSize").asLong());
    assertEquals(Problem.MEDIA_TYPE, r.contentType());
    BatchResponse resumed = sync(d, d.resend(1, 3));
    assertEquals(3, resumed.verifiedSize());
  }

  @Test
  void recordsThatDoNotGiveTheCheckpointRootAre422AndNothingIsStored() {
    TestDevice d = enrolledDevice();
    String room = room();
    BatchRequest honest = d.batch(d.record(room, "u1", "a"));
    BatchRequest tampered =
        new BatchRequest(
            0,
            honest.records(),
            Checkpoints.sign(new Checkpoint(DeviceLog.origin(d.id), 1, new byte[32]), d.signer),
            null);
    Api.Reply r = api.batch(d, tampered);
    assertEquals(422, r.status(), r.toString());
    assertEquals("bad-proof", r.code());
    assertEquals(List.of("BAD_PROOF"), alertKinds(d.id));
    assertEquals(0, api.get("/v1/devices/" + d.id + "/log").as(LogState.class).verifiedSize());
    assertEquals(
        0, api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages().size());
    sync(d, honest);
  }

  @Test
  void aClonedDeviceIsAForkQuarantinedWithAnAlert() {
    TestDevice d = enrolledDevice();
    String room = room();
    sync(d, d.batch(d.record(room, "u1", "shared history")));
    TestDevice clone = d.cloneDevice();
    sync(d, d.batch(d.record(room, "u1", "original continues")));
    Api.Reply r = api.batch(d, clone.batch(clone.record(room, "u1", "clone diverges")));
    assertEquals(409, r.status(), r.toString());
    assertEquals("fork-detected", r.code());

    Api.Reply after = api.batch(d, d.batch(d.record(room, "u1", "x")));
    assertEquals(403, after.status());
    assertEquals("device-quarantined", after.code());
    DeviceSummary s =
        api.admin("/admin/devices").as(DeviceList.class).devices().stream()
            .filter(x -> x.deviceId().equals(d.id))
            .findFirst()
            .orElseThrow();
    assertEquals(DeviceSummary.Status.FORKED, s.status());
    JsonNode alerts = api.admin("/admin/alerts").json().get("alerts");
    boolean found = false;
    for (JsonNode a : alerts) {
      found |=
          d.id.equals(a.path("deviceId").asText())
              && "CRITICAL".equals(a.path("severity").asText())
              && "FORK".equals(a.path("data").path("kind").asText());
    }
    assertTrue(found, alerts.toString());
    assertEquals(List.of("FORK"), alertKinds(d.id));
    assertEquals(
        2, api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages().size());
  }

  @Test
  void aDeviceThatStopsSendingIsOfflineAfterTheThresholdAndVerifiedWhenItReturns() {
    TestDevice d = enrolledDevice();
    sync(d, d.batch(d.record(room(), "u1", "a")));
    assertEquals(DeviceSummary.Status.VERIFIED, deviceStatus(d.id));
    clock.advance(ServerConfig.DEFAULT_OFFLINE_AFTER.minusSeconds(5));
    assertEquals(DeviceSummary.Status.VERIFIED, deviceStatus(d.id));
    clock.advance(Duration.ofSeconds(6));
    assertEquals(DeviceSummary.Status.OFFLINE, deviceStatus(d.id));
    sync(d, d.batch(d.record(room(), "u1", "b")));
    assertEquals(DeviceSummary.Status.VERIFIED, deviceStatus(d.id));
  }

  private DeviceSummary.Status deviceStatus(String deviceId) {
    return api.admin("/admin/devices").as(DeviceList.class).devices().stream()
        .filter(x -> x.deviceId().equals(deviceId))
        .findFirst()
        .orElseThrow()
        .status();
  }

  @Test
  void aCheckpointSignedByAnotherKeyIs403WithABadSignatureAlert() {
    TestDevice d = enrolledDevice();
    TestDevice other = enrolledDevice();
    Api.Reply r = api.batch(d, other.batch(other.record(room(), "u1", "a")));
    assertEquals(403, r.status(), r.toString());
    assertEquals("bad-signature", r.code());
    assertEquals(List.of("BAD_SIGNATURE"), alertKinds(d.id));
    assertEquals(List.of(), alertKinds(other.id));
  }

  /** The {@code data.kind} of each alert about {@code deviceId}, newest first. */
  private List<String> alertKinds(String deviceId) {
    List<String> kinds = new ArrayList<>();
    for (JsonNode a : api.admin("/admin/alerts").json().get("alerts")) {
      if (deviceId.equals(a.path("deviceId").asText())) {
        assertEquals("ALERT", a.path("type").asText(), a.toString());
        kinds.add(a.path("data").path("kind").asText("(none)"));
      }
    }
    return kinds;
  }

  @Test
  void aCheckpointForAVerifiedSizeWithAnotherRootIsAFork() {
    TestDevice d = enrolledDevice();
    sync(d, d.batch(d.record(room(), "u1", "a")));
    String rewritten =
        Checkpoints.sign(new Checkpoint(DeviceLog.origin(d.id), 1, new byte[32]), d.signer);
    Api.Reply r = api.batch(d, new BatchRequest(1, List.of(), rewritten, null));
    assertEquals(409, r.status(), r.toString());
    assertEquals("fork-detected", r.code());
    assertEquals(
        LogState.Status.QUARANTINED,
        api.get("/v1/devices/" + d.id + "/log").as(LogState.class).status());
  }

  @Test
  void undecodableAndForeignRecordsAreRejectedButStayInTheVerifiedLog() {
    TestDevice d = enrolledDevice();
    TestDevice other = TestDevice.create("other-" + UUID.randomUUID().toString().substring(0, 6));
    String room = room();
    DanmakuRecord foreign = other.record(room, "u9", "not mine");
    BatchResponse resp =
        sync(d, d.batchOfBytes(List.of(new byte[] {1, 2, 3}, foreign.canonicalBytes())));
    assertEquals(Outcome.REJECTED, resp.outcomes().get(0).outcome());
    assertTrue(
        resp.outcomes().get(0).reason().startsWith("invalid-"), resp.outcomes().get(0).reason());
    assertEquals(Outcome.REJECTED, resp.outcomes().get(1).outcome());
    assertEquals(2, resp.verifiedSize());
    assertEquals(
        0, api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages().size());
  }

  @Test
  void proofsFromStoredHashesVerifyAgainstTheDeviceCheckpoint() throws Exception {
    TestDevice d = enrolledDevice();
    String room = room();
    List<DanmakuRecord> recs = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      recs.add(d.record(room, "u1", "m" + i));
    }
    sync(d, d.batch(recs.subList(0, 3).toArray(DanmakuRecord[]::new)));
    byte[] root3 = d.root();
    sync(d, d.batch(recs.subList(3, 7).toArray(DanmakuRecord[]::new)));
    for (int i = 0; i < 7; i++) {
      InclusionProofResponse p = assertProvesInclusion(d, recs, i, 7);
      assertArrayEquals(recs.get(i).canonicalBytes(), p.canonicalBytes(), "canonical of " + i);
      assertEquals(
          HEX.formatHex(Rfc6962.leafHash(p.canonicalBytes())), p.leafHashHex(), "leaf of " + i);
    }
    assertProvesConsistency(d, 3, root3, 7);
    Api.Reply outOfRange = api.get("/v1/devices/" + d.id + "/proofs/inclusion?index=7");
    assertEquals(400, outOfRange.status());
  }

  @Test
  void proofsAcrossRunsOf256RecordsVerifyFromStoredAndRecomputedHashes() throws Exception {
    TestDevice d = enrolledDevice();
    String room = room();
    List<DanmakuRecord> recs = new ArrayList<>();
    byte[] root300 = null;
    for (int n : new int[] {300, 250, 70}) { // sizes 300, 550, 620: none a multiple of 256
      List<DanmakuRecord> batch = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        batch.add(d.record(room, "u1", "m" + (recs.size() + i)));
      }
      recs.addAll(batch);
      sync(d, d.batch(batch.toArray(DanmakuRecord[]::new)));
      root300 = root300 == null ? d.root() : root300;
    }
    for (int i : new int[] {0, 1, 255, 256, 299, 300, 511, 512, 549, 550, 619}) {
      assertProvesInclusion(d, recs, i, 620);
    }
    assertProvesConsistency(d, 300, root300, 620);
  }

  /**
   * Fetches the inclusion proof of record {@code index} and verifies it against the device's own
   * checkpoint of {@code size} records.
   */
  private InclusionProofResponse assertProvesInclusion(
      TestDevice d, List<DanmakuRecord> recs, int index, long size) throws Exception {
    InclusionProofResponse p =
        api.get("/v1/devices/" + d.id + "/proofs/inclusion?index=" + index)
            .as(InclusionProofResponse.class);
    Checkpoint cp = Checkpoints.open(p.checkpoint(), DeviceLog.origin(d.id), d.signer.verifier());
    assertEquals(size, cp.size());
    InclusionProof.verify(
        index,
        size,
        recs.get(index).leafHash(),
        p.proofHex().stream().map(HEX::parseHex).toList(),
        cp.root());
    return p;
  }

  /** Fetches the consistency proof from {@code from} to the device's current root and checks it. */
  private void assertProvesConsistency(TestDevice d, long from, byte[] oldRoot, long to)
      throws Exception {
    ConsistencyProofResponse c =
        api.get("/v1/devices/" + d.id + "/proofs/consistency?from=" + from + "&to=" + to)
            .as(ConsistencyProofResponse.class);
    assertEquals(HEX.formatHex(oldRoot), c.oldRootHex());
    ConsistencyProof.verify(
        from, to, oldRoot, d.root(), c.proofHex().stream().map(HEX::parseHex).toList());
  }

  @Test
  void acksAndLookupsReturnTheStoredOutcome() {
    TestDevice d = enrolledDevice();
    String room = room();
    DanmakuRecord a = d.record(room, "u1", "a");
    BatchResponse resp = sync(d, d.batch(a, d.record(room, "u1", "b")));
    AcksResponse acks = api.get("/v1/devices/" + d.id + "/acks?from=0&to=2").as(AcksResponse.class);
    assertEquals(resp.outcomes(), acks.outcomes());
    RoomMessage byKey = api.get("/v1/messages/" + a.key()).as(RoomMessage.class);
    String encoded = URLEncoder.encode(a.key().toString(), StandardCharsets.UTF_8);
    assertEquals(byKey, api.get("/v1/messages/" + encoded).as(RoomMessage.class));
    RoomMessage byId = api.get("/v1/messages/by-id/" + byKey.messageId()).as(RoomMessage.class);
    assertEquals(byKey, byId);
    Api.Reply missing = api.get("/v1/messages/" + d.record(room, "u1", "never sent").key());
    assertEquals(404, missing.status());
    assertEquals("not-found", missing.code());
    assertTrue(
        missing.json().get("detail").asText().startsWith("no message with key"),
        missing.toString());
    Api.Reply noRoute = api.get("/v1/nothing-here");
    assertEquals(404, noRoute.status());
    assertEquals("not-found", noRoute.code());
    assertEquals("malformed-idempotency-key", api.get("/v1/messages/not-a-key").code());
    RoomPage page = api.get("/v1/rooms/" + room + "/messages?after=1&limit=5").as(RoomPage.class);
    assertEquals(List.of(2L), page.messages().stream().map(RoomMessage::seq).toList());
    assertEquals(2, page.next());
  }

  @Test
  void concurrentDevicesInOneRoomGetACompleteStrictlyIncreasingNumbering() throws Exception {
    String room = room();
    List<TestDevice> devices = List.of(enrolledDevice(), enrolledDevice(), enrolledDevice());
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (TestDevice d : devices) {
        work.add(
            pool.submit(
                () -> {
                  for (int b = 0; b < 5; b++) {
                    List<DanmakuRecord> recs = new ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                      recs.add(d.record(room, "u" + i, "b" + b + "m" + i));
                    }
                    sync(d, d.batch(recs.toArray(DanmakuRecord[]::new)));
                  }
                }));
      }
      for (Future<?> f : work) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    RoomPage page = api.get("/v1/rooms/" + room + "/messages?limit=1000").as(RoomPage.class);
    List<Long> seqs = page.messages().stream().map(RoomMessage::seq).toList();
    assertEquals(Stream.iterate(1L, x -> x + 1).limit(300).toList(), seqs);
    RoomList rooms = api.admin("/admin/rooms").as(RoomList.class);
    assertEquals(
        300,
        rooms.rooms().stream()
            .filter(r -> r.room().equals(room))
            .findFirst()
            .orElseThrow()
            .highSeq());
  }

  @Test
  void theRoomStreamSendsEachConfirmedMessageOnceAndResumesAfterLastEventId() throws Exception {
    TestDevice d = enrolledDevice();
    String room = room();
    DanmakuRecord a = d.record(room, "u1", "a");
    sync(d, d.batch(a, d.record(room, "u1", "held https://x.example")));
    LinkedBlockingQueue<String> ids = new LinkedBlockingQueue<>();
    CompletableFuture<HttpResponse<Stream<String>>> stream =
        api.client()
            .sendAsync(
                HttpRequest.newBuilder(api.base().resolve("/v1/rooms/" + room + "/stream"))
                    .header("Accept", "text/event-stream")
                    .build(),
                HttpResponse.BodyHandlers.ofLines());
    HttpResponse<Stream<String>> resp = stream.get(30, TimeUnit.SECONDS);
    Thread reader =
        new Thread(
            () ->
                resp.body()
                    .filter(l -> l.startsWith("id:"))
                    .forEach(l -> ids.add(l.substring(3).strip())));
    reader.setDaemon(true);
    reader.start();
    assertEquals("1", ids.poll(30, TimeUnit.SECONDS));
    sync(d, d.batch(d.again(a), d.record(room, "u1", "c"), d.record(room, "u1", "d")));
    Set<String> live = new TreeSet<>();
    live.add(ids.poll(30, TimeUnit.SECONDS));
    live.add(ids.poll(30, TimeUnit.SECONDS));
    // event ids are confirmation cursors: seq 2 is held, so seqs 3 and 4 are confirmations 2, 3
    assertEquals(Set.of("2", "3"), live);
    assertNull(ids.poll(500, TimeUnit.MILLISECONDS));
    resp.body().close();

    HttpResponse<Stream<String>> resumed =
        api.client()
            .sendAsync(
                HttpRequest.newBuilder(api.base().resolve("/v1/rooms/" + room + "/stream"))
                    .header("Accept", "text/event-stream")
                    .header("Last-Event-ID", "2")
                    .build(),
                HttpResponse.BodyHandlers.ofLines())
            .get(30, TimeUnit.SECONDS);
    String firstId =
        resumed
            .body()
            .filter(l -> l.startsWith("id:"))
            .map(l -> l.substring(3).strip())
            .findFirst()
            .orElseThrow();
    assertEquals("3", firstId);
  }

  @Test
  void adminApiNeedsTheTokenAndShowsCounters() {
    assertEquals(401, api.get("/admin/overview").status());
    TestDevice d = enrolledDevice();
    sync(d, d.batch(d.record(room(), "u1", "a")));
    Overview o = api.admin("/admin/overview").as(Overview.class);
    assertTrue(o.batches() >= 1);
    assertTrue(o.outcomes().get("CONFIRMED") >= 1);
    assertTrue(o.devices() >= 1);
    assertTrue(o.duplicates().edge() >= 1, "edge duplicates come from batch metadata");
    assertEquals(200, api.admin("/admin/devices/" + d.id + "/key").status());
    Api.Reply metrics = api.get("/metrics");
    assertTrue(metrics.body().contains("danmaku_batch_seconds"), metrics.body());
    assertTrue(
        metrics.body().contains("danmaku_records_total{outcome=\"CONFIRMED\"}"), metrics.body());
    assertEquals(200, api.get("/readyz").status());
    assertEquals(200, api.get("/healthz").status());
  }

  @Test
  void enrolmentChecksTheTokenAndKeyOwnership() {
    TestDevice d = TestDevice.create("enr-" + UUID.randomUUID().toString().substring(0, 8));
    Api.Reply wrong = api.post("/v1/devices", d.enrollRequest("nope"));
    assertEquals(403, wrong.status());
    assertEquals("forbidden", wrong.code());
    api.enroll(d, server.enrollToken());
    api.enroll(d, server.enrollToken());
    TestDevice impostor = TestDevice.create(d.id);
    Api.Reply taken = api.post("/v1/devices", impostor.enrollRequest(server.enrollToken()));
    assertEquals(409, taken.status());
    assertEquals("device-id-taken", taken.code());
    String origin =
        api.post("/v1/devices", d.enrollRequest(server.enrollToken()))
            .json()
            .get("origin")
            .asText();
    assertEquals(DeviceLog.origin(d.id), origin);
  }

  @Test
  void concurrentResendsOfOneBatchAreStoredOnceAndAllGetTheSameOutcomes() throws Exception {
    TestDevice d = enrolledDevice();
    String room = room();
    List<DanmakuRecord> recs = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      recs.add(d.record(room, "u" + i, "retry storm " + i));
    }
    BatchRequest batch = d.batch(recs.toArray(DanmakuRecord[]::new));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Api.Reply> replies = new ArrayList<>();
    try {
      List<Future<Api.Reply>> sends = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        sends.add(pool.submit(() -> api.batch(d, batch)));
      }
      for (Future<Api.Reply> f : sends) {
        replies.add(f.get(120, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    List<RecordOutcome> first = null;
    int replayed = 0;
    for (Api.Reply r : replies) {
      assertEquals(200, r.status(), r.toString());
      List<RecordOutcome> outcomes = r.as(BatchResponse.class).outcomes();
      if (first == null) {
        first = outcomes;
      }
      assertEquals(first, outcomes);
      replayed += "true".equals(r.replayed()) ? 1 : 0;
    }
    assertEquals(3, replayed);
    RoomPage page = api.get("/v1/rooms/" + room + "/messages?limit=1000").as(RoomPage.class);
    assertEquals(
        Stream.iterate(1L, x -> x + 1).limit(50).toList(),
        page.messages().stream().map(RoomMessage::seq).toList());
    assertEquals(50, api.get("/v1/devices/" + d.id + "/log").as(LogState.class).verifiedSize());
  }

  @Test
  void operatorEventsStreamAnnouncesForks() throws Exception {
    LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    HttpResponse<Stream<String>> events =
        api.client()
            .sendAsync(
                HttpRequest.newBuilder(api.base().resolve("/admin/events"))
                    .header("Accept", "text/event-stream")
                    .header("Authorization", "Bearer " + server.adminToken())
                    .build(),
                HttpResponse.BodyHandlers.ofLines())
            .get(30, TimeUnit.SECONDS);
    assertEquals(200, events.statusCode());
    Thread reader = new Thread(() -> events.body().forEach(lines::add));
    reader.setDaemon(true);
    reader.start();
    assertEquals(": connected", lines.poll(30, TimeUnit.SECONDS));

    TestDevice d = enrolledDevice();
    String room = room();
    sync(d, d.batch(d.record(room, "u1", "a")));
    TestDevice clone = d.cloneDevice();
    sync(d, d.batch(d.record(room, "u1", "b")));
    api.batch(d, clone.batch(clone.record(room, "u1", "c")));

    String alert = null;
    for (String line = lines.poll(30, TimeUnit.SECONDS);
        line != null && alert == null;
        line = lines.poll(30, TimeUnit.SECONDS)) {
      if (line.startsWith("data:")
          && line.contains("CRITICAL")
          && line.contains(d.id)
          && line.contains("\"kind\":\"FORK\"")) {
        alert = line;
      }
    }
    assertNotNull(alert, "no CRITICAL alert for " + d.id);
    events.body().close();
  }
}
