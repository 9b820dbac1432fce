package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.SocketPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several batches in flight (docs/sync.md, "Batches in flight") against a witness that chains them
 * as the server does: replies are stored in log order whatever order they arrive in, and a failure
 * anywhere in the window goes through the failure table without losing or repeating a record.
 */
class SyncerWindowTest {
  static final int RECORDS = 40;
  static final int BATCH = 5;

  @TempDir Path dir;
  final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  final AtomicInteger inFlight = new AtomicInteger();
  final AtomicInteger maxInFlight = new AtomicInteger();
  final OkHttpClient http =
      new OkHttpClient.Builder()
          .readTimeout(Duration.ofSeconds(10))
          .retryOnConnectionFailure(false)
          .connectionPool(SyncClient.connectionPool())
          .addInterceptor(
              chain -> {
                if (!chain.request().url().encodedPath().endsWith("/batches")) {
                  return chain.proceed(chain.request());
                }
                maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                try {
                  return chain.proceed(chain.request());
                } finally {
                  inFlight.decrementAndGet();
                }
              })
          .build();
  final List<Duration> sleeps = Collections.synchronizedList(new ArrayList<>());
  final List<Long> stored = Collections.synchronizedList(new ArrayList<>());
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
    dev.faults.beforeAcceptBatch(stored::add);
    witness =
        new FakeWitness(
            "dev-1",
            NoteVerifier.ofEd25519(dev.identity.origin(), dev.identity.signer().publicKey()));
    witness.window = 4;
    web = new MockWebServer();
    web.setDispatcher(witness);
    web.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    web.shutdown();
    dev.close();
  }

  SyncReport sync(int window) throws Exception {
    SyncSettings s =
        SyncSettings.defaults().withBatchSize(BATCH).withMaxAttempts(4).withWindow(window);
    return Syncer.builder(
            dev.store,
            dev.identity,
            new SyncClient(http, web.url("/").toString(), clock),
            ReceiptVerifier.legacyOnly(witness.serverVerifier()),
            clock)
        .settings(s)
        .backoff(new Backoff(s.backoffBase(), s.backoffCap(), () -> 0.5))
        .sleeper(sleeps::add)
        .metadata(() -> new BatchMetadata(RECORDS, 0, 0, 0))
        .build()
        .sync();
  }

  /** Every record verified once, in order, with the witness's outcome; stored batch ends rising. */
  void assertEverythingOnceInOrder(SyncReport r) throws Exception {
    assertTrue(r.complete(), r.toString());
    assertEquals(RECORDS, witness.verifiedSize());
    for (StoredRecord x : dev.store.records(0, RECORDS)) {
      assertEquals("CONFIRMED", x.outcome(), "record " + x.index());
      assertEquals(Long.valueOf(x.index() + 1), x.seq(), "record " + x.index());
    }
    for (int i = 1; i < stored.size(); i++) {
      assertTrue(stored.get(i) > stored.get(i - 1), "stored batch ends " + stored);
    }
    assertEquals(RECORDS, stored.get(stored.size() - 1));
  }

  @Test
  void repliesArrivingOutOfOrderAreStoredInLogOrder() throws Exception {
    // the first batch of each window answers last, the last first
    for (long from = 0; from < RECORDS; from += BATCH) {
      witness.replyDelayMillis.put(from, 300 - 100 * ((from / BATCH) % 4));
    }
    SyncReport r = sync(4);
    assertEverythingOnceInOrder(r);
    assertEquals(List.of(5L, 10L, 15L, 20L, 25L, 30L, 35L, 40L), stored);
    assertEquals(8, r.batches());
    assertTrue(maxInFlight.get() > 1, "batches went in flight together: " + maxInFlight);
    assertTrue(maxInFlight.get() <= 4, "at most the window in flight: " + maxInFlight);
    assertEquals(0, r.retries());
    assertEquals(0, r.resumes());
  }

  @Test
  void aFollowerRefusedBecauseItsPredecessorFailedIsSentAgainFromTheVerifiedSize()
      throws Exception {
    witness.batchFaults.put(
        5L,
        q ->
            FakeWitness.problem(ErrorCode.REDIS_UNAVAILABLE, "down").setHeader("Retry-After", "1"));
    SyncReport r = sync(4);
    assertEverythingOnceInOrder(r);
    assertEquals(1, r.retries(), "one backoff for the failed batch, none for its followers");
    assertEquals(List.of(Duration.ofSeconds(1)), sleeps);
    long processedFrom5 =
        witness.batches.stream().map(BatchRequest::oldSize).filter(s -> s == 5).count();
    assertEquals(1, processedFrom5, "the refused attempt stored nothing, the second was taken");
    assertEquals(0, r.resumes());
  }

  @Test
  void aLostReplyInTheMiddleOfAWindowIsAnsweredFromWhatTheServerStored() throws Exception {
    witness.batchFaults.put(10L, witness::processThenDrop);
    SyncReport r = sync(4);
    assertEverythingOnceInOrder(r);
    assertEquals(1, r.retries());
    long resentFrom10 =
        witness.batches.stream().map(BatchRequest::oldSize).filter(s -> s == 10).count();
    assertEquals(1, resentFrom10, "the stored batch whose reply was lost did not go again");
    long logReads = witness.requests.stream().filter(q -> q.endsWith("/log")).count();
    assertEquals(2, logReads, "the verified size was read at the start and after the loss");
    assertEquals(RECORDS, r.recordsSent(), "the batches stored before the loss count as sent");
  }

  @Test
  void aCutConnectionInTheWindowIsRetried() throws Exception {
    witness.batchFaults.put(
        15L, q -> new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AFTER_REQUEST));
    SyncReport r = sync(4);
    assertEverythingOnceInOrder(r);
    assertEquals(1, r.retries());
  }

  @Test
  void rateLimitedInTheWindowWaitsTheRetryAfter() throws Exception {
    witness.batchFaults.put(
        10L,
        q -> FakeWitness.problem(ErrorCode.RATE_LIMITED, "busy").setHeader("Retry-After", "2"));
    SyncReport r = sync(4);
    assertEverythingOnceInOrder(r);
    assertEquals(List.of(Duration.ofSeconds(2)), sleeps);
  }

  @Test
  void aTooLargeBatchInTheWindowIsHalvedForTheRestOfTheRun() throws Exception {
    witness.maxRecords = 3;
    SyncReport r = sync(4);
    assertEverythingOnceInOrder(r);
    assertTrue(
        witness.batches.stream().filter(b -> b.records().size() > 2).count() >= 1,
        "the first batch was refused as too large");
    assertEquals(20, r.batches(), "batches of 2 after the refusal");
  }

  @Test
  void aServerThatAnnouncesNoWindowGetsOneBatchAtATime() throws Exception {
    witness.window = 0;
    SyncReport r = sync(4);
    assertEverythingOnceInOrder(r);
    assertEquals(1, maxInFlight.get(), "one batch in flight, as before windows");
  }

  @Test
  void aWindowOfOneSendsOneBatchAtATimeToAnyServer() throws Exception {
    SyncReport r = sync(1);
    assertEverythingOnceInOrder(r);
    assertEquals(1, maxInFlight.get());
  }

  @Test
  void theServersSmallerWindowWins() throws Exception {
    witness.window = 2;
    for (long from = 0; from < RECORDS; from += BATCH) {
      witness.replyDelayMillis.put(from, 50L);
    }
    SyncReport r = sync(16);
    assertEverythingOnceInOrder(r);
    assertTrue(maxInFlight.get() <= 2, "at most the server's window: " + maxInFlight);
  }
}
