package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.retention.PruneReport;
import dev.danmakuledger.edge.retention.Pruner;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.protocol.DeviceReport;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import okhttp3.OkHttpClient;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sync client against a scripted witness on MockWebServer (docs/architecture.md §4). */
class SyncerTest {
  static final int RECORDS = 25;

  @TempDir Path dir;
  final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  final OkHttpClient http =
      new OkHttpClient.Builder()
          .readTimeout(Duration.ofSeconds(5))
          .retryOnConnectionFailure(false)
          .build();
  final List<Duration> sleeps = new ArrayList<>();
  TestDevice dev;
  MockWebServer web;
  FakeWitness witness;

  @BeforeEach
  void setUp() throws Exception {
    dev = TestDevice.create(dir, clock);
    List<CompletableFuture<CaptureAck>> acks = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      acks.add(dev.capture.submit(dev.request("u" + (i % 3), i, "message " + i)));
    }
    for (CompletableFuture<CaptureAck> a : acks) {
      CaptureService.await(a);
    }
    witness = new FakeWitness("dev-1", deviceVerifier());
    web = new MockWebServer();
    web.setDispatcher(witness);
    web.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    web.shutdown();
    dev.close();
  }

  NoteVerifier deviceVerifier() {
    return NoteVerifier.ofEd25519(dev.identity.origin(), dev.identity.signer().publicKey());
  }

  Syncer syncer(SyncSettings s) {
    return syncer(s, ReceiptVerifier.legacyOnly(witness.serverVerifier()));
  }

  Syncer syncer(SyncSettings s, ReceiptVerifier receipts) {
    return Syncer.builder(
            dev.store,
            dev.identity,
            new SyncClient(http, web.url("/").toString(), clock),
            receipts,
            clock)
        .settings(s)
        .backoff(new Backoff(s.backoffBase(), s.backoffCap(), () -> 0.5))
        .sleeper(sleeps::add)
        .metadata(() -> new BatchMetadata(RECORDS, 2, 1, 1))
        .build();
  }

  Syncer syncer(int batchSize) {
    return syncer(SyncSettings.defaults().withBatchSize(batchSize).withMaxAttempts(4));
  }

  long unsynced() throws Exception {
    return dev.store.outcomeCounts().getOrDefault("UNSYNCED", 0L);
  }

  @Test
  void outcomesLeftUnstoredByAFailedRunAreFetchedByTheNext() throws Exception {
    dev.faults.beforeAcceptBatch(
        size -> {
          if (size == 10) {
            throw new StoreException("disk full");
          }
        });
    Syncer s = syncer(10);
    assertThrows(StoreException.class, s::sync);
    assertEquals(10, witness.verifiedSize(), "the first batch was verified, no other sent");
    assertTrue(
        dev.store.records(0, 10).stream().allMatch(x -> x.outcome() == null),
        "no outcome of the first batch is stored");
    dev.faults.beforeAcceptBatch(size -> {});
    SyncReport r = s.sync();
    assertTrue(r.complete(), r.toString());
    assertEquals(0, unsynced());
    for (StoredRecord x : dev.store.records(0, RECORDS)) {
      assertEquals("CONFIRMED", x.outcome(), "record " + x.index());
      assertEquals(Long.valueOf(x.index() + 1), x.seq(), "record " + x.index());
    }
  }

  @Test
  void aDeviceWithoutCountersToReportStillSyncs() throws Exception {
    SyncSettings s = SyncSettings.defaults().withBatchSize(10);
    Syncer noCounters =
        Syncer.builder(
                dev.store,
                dev.identity,
                new SyncClient(http, web.url("/").toString(), clock),
                ReceiptVerifier.legacyOnly(witness.serverVerifier()),
                clock)
            .settings(s)
            .backoff(new Backoff(s.backoffBase(), s.backoffCap(), () -> 0.5))
            .sleeper(sleeps::add)
            .build();
    SyncReport r = noCounters.sync();
    assertTrue(r.complete(), r.toString());
    assertEquals(0, unsynced());
  }

  @Test
  void cosignedReceiptsAreCheckedWithTheCosignerKeyFromEnrolment() throws Exception {
    witness.cosigner = CosignatureSigner.generate("test-server/cosigner", new SecureRandom());
    ReceiptVerifier receipts =
        ReceiptVerifier.of(witness.serverVerifier(), witness.cosigner.verifier());
    SyncReport r = syncer(SyncSettings.defaults().withBatchSize(10), receipts).sync();
    assertTrue(r.complete(), r.toString());
    assertEquals(RECORDS, dev.store.latestReceipt().map(StoredCheckpoint::size).orElse(-1L));
    // knowing the cosigner key, the agent names it, so the server may leave out the note signature
    assertFalse(witness.receiptCosigners.isEmpty());
    assertEquals(
        List.of(witness.cosigner.verifier().keyId()),
        witness.receiptCosigners.stream().distinct().toList());
  }

  @Test
  void anAgentWithoutTheCosignerKeyNamesNone() throws Exception {
    SyncReport r = syncer(10).sync();
    assertTrue(r.complete(), r.toString());
    assertFalse(witness.receiptCosigners.isEmpty());
    assertEquals(List.of("-"), witness.receiptCosigners.stream().distinct().toList());
  }

  @Test
  void oldNoteSignedReceiptsAreStillAcceptedWhenACosignerKeyIsKnown() throws Exception {
    ReceiptVerifier receipts =
        ReceiptVerifier.of(
            witness.serverVerifier(),
            CosignatureSigner.generate("test-server/cosigner", new SecureRandom()).verifier());
    SyncReport r = syncer(SyncSettings.defaults().withBatchSize(10), receipts).sync();
    assertTrue(r.complete(), r.toString());
  }

  @Test
  void aCosignatureByAnotherKeyStopsTheSync() throws Exception {
    witness.cosigner = CosignatureSigner.generate("test-server/cosigner", new SecureRandom());
    ReceiptVerifier receipts =
        ReceiptVerifier.of(
            witness.serverVerifier(),
            CosignatureSigner.generate("test-server/cosigner", new SecureRandom()).verifier());
    SyncStoppedException e =
        assertThrows(
            SyncStoppedException.class,
            () -> syncer(SyncSettings.defaults().withBatchSize(10), receipts).sync());
    assertEquals(SyncStoppedException.Reason.PROTOCOL, e.reason());
    assertTrue(e.getMessage().contains("receipt"), e.getMessage());
  }

  @Test
  void sendsTheLogInBatchesWithACheckpointForEachEnd() throws Exception {
    SyncReport r = syncer(10).sync();

    assertTrue(r.complete(), r.toString());
    assertEquals(Map.of("CONFIRMED", (long) RECORDS), r.outcomes());
    assertEquals(
        List.of(0L, 10L, 20L), witness.batches.stream().map(BatchRequest::oldSize).toList());
    long lastReport = -1;
    for (BatchRequest b : witness.batches) {
      Checkpoint cp = Checkpoints.open(b.checkpoint(), dev.identity.origin(), deviceVerifier());
      assertEquals(b.oldSize() + b.records().size(), cp.size());
      SyncAttempt before = b.oldSize() == 0 ? null : new SyncAttempt(clock.millis(), "ok");
      BatchMetadata m = b.metadata();
      assertEquals(
          new BatchMetadata(RECORDS, 2, 1, 1)
              .sentAt(clock.millis())
              .withQueue(clock.millis(), before),
          new BatchMetadata(
              m.bloomChecks(),
              m.bloomMaybe(),
              m.edgeDuplicates(),
              m.bloomFalsePositives(),
              m.deviceClockMillis(),
              m.oldestUnsyncedMillis(),
              m.lastAttempt()),
          "counters, clock, the queue's oldest capture and the batch before");
      assertTrue(m.reportSeq() > lastReport, "report numbers grow: " + m.reportSeq());
      lastReport = m.reportSeq();
      assertTrue(
          DeviceReport.verifies(
              dev.identity.deviceId(), dev.identity.signer().publicKey(), b.oldSize(), cp, m),
          "signed by the device for this batch");
      assertFalse(
          DeviceReport.verifies(
              dev.identity.deviceId(), dev.identity.signer().publicKey(), b.oldSize() + 1, cp, m),
          "bound to the batch's oldSize");
    }
    StoredRecord last = dev.store.records(RECORDS - 1, 1).get(0);
    assertEquals("CONFIRMED", last.outcome());
    assertEquals(RECORDS, last.seq());
    assertEquals(RECORDS, dev.store.latestReceipt().map(StoredCheckpoint::size).orElse(-1L));
    assertEquals(0, r.retries());
    assertTrue(sleeps.isEmpty());
  }

  @Test
  void aSecondRunSendsNothing() throws Exception {
    syncer(10).sync();
    int before = witness.batches.size();
    SyncReport again = syncer(10).sync();
    assertTrue(again.complete());
    assertEquals(before, witness.batches.size());
    assertEquals(0, again.batches());
  }

  private void captureMore(int from, int n) throws Exception {
    for (int i = from; i < from + n; i++) {
      CaptureService.await(dev.capture.submit(dev.request("u" + (i % 3), i, "message " + i)));
    }
  }

  private long logReads() {
    return witness.requests.stream().filter(q -> q.endsWith("/log")).count();
  }

  @Test
  void aRunAfterACompleteRunStartsWhereTheLastReplyLeftTheLog() throws Exception {
    Syncer s = syncer(10);
    s.sync();
    assertEquals(1, logReads());
    captureMore(RECORDS, 5);

    SyncReport r = s.sync();

    assertTrue(r.complete(), r.toString());
    assertEquals(1, logReads(), "the second run did not read the verified size again");
    BatchRequest last = witness.batches.get(witness.batches.size() - 1);
    assertEquals(RECORDS, last.oldSize());
    assertEquals(RECORDS + 5, witness.verifiedSize());
    assertEquals(0, unsynced());
  }

  @Test
  void aRunAfterAFailedRunReadsTheVerifiedSizeFirst() throws Exception {
    Syncer s = syncer(10);
    witness.fault(witness::pass);
    witness.fault(q -> FakeWitness.problem(ErrorCode.UNAUTHENTICATED, "who?"));
    assertThrows(SyncStoppedException.class, s::sync);
    assertEquals(1, logReads());

    SyncReport r = s.sync();

    assertTrue(r.complete(), r.toString());
    assertEquals(2, logReads(), "a run after a failure starts from the server's size");
  }

  @Test
  void aServerWhoseSizeMovedSinceTheLastRunIsFoundByTheFirstBatch() throws Exception {
    Syncer s = syncer(10);
    s.sync();
    captureMore(RECORDS, 8);
    // meanwhile another sender of this log (a run whose reply was lost) had the server verify five
    // of the eight new records
    CompactRange range = CompactRange.empty();
    List<WireRecord> wire = new ArrayList<>();
    for (StoredRecord r : dev.store.records(0, RECORDS + 5)) {
      range.append(r.leafHash());
      if (r.index() >= RECORDS) {
        wire.add(new WireRecord(r.index(), Base64.getEncoder().encodeToString(r.canonical())));
      }
    }
    String note =
        Checkpoints.sign(
            new Checkpoint(dev.identity.origin(), RECORDS + 5, range.root()),
            dev.identity.signer());
    new SyncClient(http, web.url("/").toString(), clock)
        .postBatch("dev-1", new BatchRequest(RECORDS, wire, note, null));
    int sent = witness.batches.size();

    SyncReport r = s.sync();

    assertTrue(r.complete(), r.toString());
    assertEquals(1, r.resumes(), "the first batch was answered size-mismatch");
    assertEquals(2, logReads(), "the size-mismatch made the run read the server's size");
    assertEquals(
        List.of((long) RECORDS, RECORDS + 5L),
        witness.batches.subList(sent, witness.batches.size()).stream()
            .map(BatchRequest::oldSize)
            .toList(),
        "the refused batch, then the rest from the server's size");
    assertEquals(0, unsynced(), "the outcomes of what the server had were fetched");
    assertEquals(RECORDS + 8, witness.verifiedSize());
  }

  @Test
  void aQuarantineSinceTheLastRunStopsAtTheFirstBatch() throws Exception {
    Syncer s = syncer(10);
    s.sync();
    captureMore(RECORDS, 5);
    witness.fault(q -> FakeWitness.problem(ErrorCode.DEVICE_QUARANTINED, "quarantined"));

    SyncStoppedException e = assertThrows(SyncStoppedException.class, s::sync);

    assertEquals(SyncStoppedException.Reason.QUARANTINED, e.reason());
    assertEquals(RECORDS, witness.verifiedSize());
    assertEquals(5, unsynced());
  }

  @Test
  void aLostReplyIsNotSentAgainItsStoredOutcomesAreFetched() throws Exception {
    Syncer s = syncer(10);
    witness.fault(witness::pass);
    witness.fault(witness::pass);
    witness.fault(witness::processThenDrop);

    SyncReport r = s.sync();

    assertTrue(r.complete(), r.toString());
    assertEquals(RECORDS, witness.verifiedSize());
    assertEquals(1, r.retries());
    assertEquals(List.of(Duration.ofMillis(100)), sleeps);
    assertEquals(
        List.of(0L, 10L, 20L), witness.batches.stream().map(BatchRequest::oldSize).toList());
    assertTrue(
        witness.requests.stream().anyMatch(q -> q.endsWith("/acks")),
        "the outcomes of the batch whose reply was lost were fetched: " + witness.requests);
    assertEquals(3, r.batches(), "the batch whose reply was lost counts as sent");
    assertEquals(RECORDS, r.recordsSent());
    assertEquals(0, unsynced());
  }

  @Test
  void retryAfterOfA503IsHonoured() throws Exception {
    witness.fault(
        r ->
            FakeWitness.problem(ErrorCode.REDIS_UNAVAILABLE, "down").setHeader("Retry-After", "7"));
    witness.fault(r -> FakeWitness.problem(ErrorCode.RATE_LIMITED, "slow down"));

    SyncReport r = syncer(100).sync();

    assertTrue(r.complete());
    assertEquals(List.of(Duration.ofSeconds(7), Duration.ofMillis(200)), sleeps);
  }

  @Test
  void givesUpAfterMaxAttemptsAndKeepsEverything() throws Exception {
    for (int i = 0; i < 10; i++) {
      witness.fault(r -> new MockResponse().setResponseCode(503));
    }
    SyncStoppedException e = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.UNREACHABLE, e.reason());
    assertTrue(e.retryLater());
    assertEquals(3, sleeps.size(), "4 attempts, 3 waits: " + sleeps);
    assertEquals(RECORDS, unsynced());
    assertEquals(RECORDS, dev.store.recordCount());
  }

  @Test
  void sizeMismatchResumesFromTheServerSizeAndFetchesTheAcks() throws Exception {
    // Records [0, 10) reached the server but the device never stored the reply.
    List<StoredRecord> first = dev.store.records(0, 10);
    CompactRange range = CompactRange.empty();
    List<WireRecord> wire = new ArrayList<>();
    for (StoredRecord r : first) {
      range.append(r.leafHash());
      wire.add(new WireRecord(r.index(), Base64.getEncoder().encodeToString(r.canonical())));
    }
    String note =
        Checkpoints.sign(
            new Checkpoint(dev.identity.origin(), 10, range.root()), dev.identity.signer());
    new SyncClient(http, web.url("/").toString(), clock)
        .postBatch("dev-1", new BatchRequest(0, wire, note, null));
    witness.batches.clear();
    witness.logOverride = new LogState("dev-1", 0, null, null, null, LogState.Status.VERIFIED);

    SyncReport r = syncer(20).sync();

    assertTrue(r.complete(), r.toString());
    assertEquals(1, r.resumes());
    assertEquals(List.of(0L, 10L), witness.batches.stream().map(BatchRequest::oldSize).toList());
    assertEquals(10L, dev.store.records(9, 1).get(0).seq(), "outcome of 9 fetched from /acks");
    assertEquals(RECORDS, witness.verifiedSize());
  }

  @Test
  void aBacklogGoesInLargeBatchesAndTheLiveTailInSmallOnes() throws Exception {
    SyncSettings s =
        SyncSettings.defaults().withBatchSize(4).withBacklogBatchSize(10).withMaxAttempts(4);
    SyncReport r = syncer(s).sync();

    assertTrue(r.complete(), r.toString());
    List<Integer> sizes = witness.batches.stream().map(b -> b.records().size()).toList();
    List<Integer> want = new ArrayList<>();
    for (long left = RECORDS; left > 0; left -= want.get(want.size() - 1)) {
      want.add((int) Math.min(left, left >= 10 ? 10 : 4));
    }
    assertEquals(want, sizes);
    assertEquals(10, sizes.get(0));
    assertTrue(sizes.get(sizes.size() - 1) <= 4, sizes.toString());
  }

  @Test
  void backlogBatchesAreHalvedToo() throws Exception {
    witness.maxRecords = 4;
    SyncSettings s =
        SyncSettings.defaults().withBatchSize(3).withBacklogBatchSize(10).withMaxAttempts(4);
    SyncReport r = syncer(s).sync();
    assertTrue(r.complete());
    List<Integer> sizes = witness.batches.stream().map(b -> b.records().size()).toList();
    assertEquals(List.of(10, 5, 2), sizes.subList(0, 3));
    assertTrue(sizes.stream().skip(3).allMatch(n -> n <= 2), sizes.toString());
  }

  @Test
  void tooLargeBatchesAreHalved() throws Exception {
    witness.maxRecords = 4;
    SyncReport r = syncer(10).sync();
    assertTrue(r.complete());
    List<Integer> sizes = witness.batches.stream().map(b -> b.records().size()).toList();
    assertEquals(10, sizes.get(0));
    assertEquals(5, sizes.get(1));
    assertEquals(2, sizes.get(2));
    assertTrue(sizes.stream().skip(3).allMatch(n -> n <= 2), sizes.toString());
  }

  @Test
  void notEnrolledStopsWithAClearMessage() throws Exception {
    witness.fault(r -> FakeWitness.problem(ErrorCode.UNAUTHENTICATED, "unknown device"));
    SyncStoppedException e = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.NOT_ENROLLED, e.reason());
    assertTrue(e.getMessage().contains("edge-agent enroll"), e.getMessage());
    assertTrue(sleeps.isEmpty());
  }

  @Test
  void unknownDeviceLogMeansNotEnrolled() throws Exception {
    witness.fault(r -> FakeWitness.problem(ErrorCode.NOT_FOUND, "device dev-1 is not enrolled"));
    SyncStoppedException e = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.NOT_ENROLLED, e.reason());
  }

  @Test
  void quarantinedDeviceSendsNothing() throws Exception {
    witness.status = LogState.Status.QUARANTINED;
    SyncStoppedException e = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.QUARANTINED, e.reason());
    assertTrue(witness.batches.isEmpty());
    assertEquals(RECORDS, unsynced());
  }

  @Test
  void anotherRootAtTheVerifiedSizeIsAForkReportedToTheWitness() throws Exception {
    syncer(10).sync();
    // A clone: another key-holder's log of the same size with other records.
    LogState real = witness.state();
    witness.logOverride =
        new LogState(
            "dev-1",
            10,
            "00".repeat(32),
            real.checkpoint(),
            real.receipt(),
            LogState.Status.VERIFIED);

    SyncStoppedException e = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());

    assertEquals(SyncStoppedException.Reason.FORK, e.reason());
    assertTrue(e.getMessage().contains("FORK"), e.getMessage());
    assertEquals(RECORDS, dev.store.recordCount(), "nothing local is deleted");
    BatchRequest shown = witness.batches.get(witness.batches.size() - 1);
    assertEquals(10, shown.oldSize(), "the device showed its checkpoint for the disputed size");
    assertTrue(shown.records().isEmpty());
  }

  @Test
  void aForkedCheckpointIsRefusedByTheWitnessAndQuarantines() throws Exception {
    syncer(10).sync();
    NoteSigner sameKey = dev.identity.signer();
    String forged =
        Checkpoints.sign(new Checkpoint(dev.identity.origin(), 10, new byte[32]), sameKey);
    SyncClient client = new SyncClient(http, web.url("/").toString(), clock);
    ServerProblemException e =
        assertThrows(
            ServerProblemException.class,
            () -> client.postBatch("dev-1", new BatchRequest(10, List.of(), forged, null)));
    assertEquals("fork-detected", e.code());
    SyncStoppedException stop = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.QUARANTINED, stop.reason());
  }

  @Test
  void serverAheadOfTheDeviceStopsWithoutSending() throws Exception {
    syncer(10).sync();
    witness.logOverride =
        new LogState("dev-1", RECORDS + 5, "ab".repeat(32), null, null, LogState.Status.VERIFIED);
    SyncStoppedException e = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.SERVER_AHEAD, e.reason());
    assertTrue(e.getMessage().contains("older backup"), e.getMessage());
  }

  @Test
  void receiptWithoutTheServerSignatureIsRefused() throws Exception {
    witness.receiptSigner = NoteSigner.generate("impostor", new SecureRandom(new byte[] {9}));
    SyncStoppedException e = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.PROTOCOL, e.reason());
    assertEquals(RECORDS, unsynced(), "no outcome stored from an unverified reply");
    assertFalse(dev.store.latestReceipt().isPresent());
  }

  @Test
  void garbageReplyIsRetriedThenGivenUp() throws Exception {
    for (int i = 0; i < 4; i++) {
      witness.fault(r -> new MockResponse().setResponseCode(200).setBody("{\"verifiedSize\": [}"));
    }
    SyncStoppedException e = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.UNREACHABLE, e.reason());
    assertTrue(e.getMessage().contains("not a valid LogState"), e.getMessage());
  }

  @Test
  void syncContinuesAfterPruningAndPrunedKeysStillDedupe() throws Exception {
    assertTrue(syncer(10).sync().complete());
    clock.advance(Duration.ofDays(2));
    PruneReport pruned = new Pruner(dev.store, clock).prune(Duration.ofDays(1));
    assertEquals(RECORDS - 1, pruned.pruned(), "every covered record but the newest");
    for (int i = RECORDS; i < RECORDS + 5; i++) {
      dev.capture.capture(dev.request("u" + (i % 3), i, "message " + i));
    }

    SyncReport r = syncer(10).sync();

    assertTrue(r.complete(), r.toString());
    assertEquals(
        (long) RECORDS, witness.batches.get(witness.batches.size() - 1).oldSize(), "resumed");
    assertEquals(RECORDS + 5, dev.store.latestReceipt().map(StoredCheckpoint::size).orElse(-1L));
    CaptureAck repeat = dev.capture.capture(dev.request("u0", 0, "message 0"));
    assertTrue(repeat.repeat());
    assertEquals(1L, repeat.seq(), "the server's seq of the pruned original");
    assertEquals(RECORDS - 1, dev.verify().recordsPruned());
    assertTrue(dev.verify().ok(), dev.verify().toString());
  }

  @Test
  void aRejectedRecordIsStoredAsFinalAndTheRunContinuesPastIt() throws Exception {
    witness.rejected.add(3L);
    witness.rejected.add(12L);

    SyncReport r = syncer(10).sync();

    assertTrue(r.complete(), r.toString());
    assertEquals(RECORDS, witness.verifiedSize());
    assertEquals(Map.of("CONFIRMED", (long) RECORDS - 2, "REJECTED", 2L), r.outcomes());
    StoredRecord three = dev.store.records(3, 1).get(0);
    assertEquals("REJECTED", three.outcome());
    assertEquals("text is moderated", three.outcomeReason());
    assertEquals(null, three.seq());
    assertEquals("CONFIRMED", dev.store.records(4, 1).get(0).outcome());
    assertEquals(0, unsynced());

    int sent = witness.batches.size();
    SyncReport again = syncer(10).sync();
    assertTrue(again.complete(), again.toString());
    assertEquals(0, again.recordsSent(), "a REJECTED record is final and never resent");
    assertEquals(sent, witness.batches.size());
    assertEquals("REJECTED", dev.store.records(12, 1).get(0).outcome());
  }

  private static MockResponse unknownCode(int status) {
    return new MockResponse()
        .setResponseCode(status)
        .setHeader("Content-Type", "application/problem+json")
        .setBody(
            "{\"type\":\"https://danmaku-ledger.dev/problems/teapot-overflow\","
                + "\"title\":\"t\",\"status\":"
                + status
                + ",\"code\":\"teapot-overflow\",\"detail\":\"from a newer server\"}");
  }

  @Test
  void anUnknownErrorCodeStopsByItsStatusWithoutCrashing() throws Exception {
    witness.fault(r -> unknownCode(409));
    SyncStoppedException e = assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.PROTOCOL, e.reason());
    assertTrue(e.getMessage().contains("teapot-overflow"), e.getMessage());
    assertEquals(RECORDS, unsynced());

    witness.fault(r -> unknownCode(403));
    SyncStoppedException refused =
        assertThrows(SyncStoppedException.class, () -> syncer(10).sync());
    assertEquals(SyncStoppedException.Reason.REFUSED, refused.reason());
  }

  @Test
  void anUnknownErrorCodeWithA503IsRetried() throws Exception {
    witness.fault(r -> unknownCode(503));
    SyncReport r = syncer(10).sync();
    assertTrue(r.complete(), r.toString());
    assertEquals(1, r.retries());
  }
}
