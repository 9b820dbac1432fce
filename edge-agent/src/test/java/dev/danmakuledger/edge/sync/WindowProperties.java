package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import okhttp3.OkHttpClient;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.mockwebserver.SocketPolicy;

/**
 * Batches in flight (docs/sync.md, "Batches in flight"): whatever order the replies of a window
 * arrive in and wherever in the window a batch fails, the run stores exactly the batches before the
 * failed one, in log order, and the next run resumes from the server's verified size and ends with
 * every record verified once with the witness's outcome.
 */
class WindowProperties {
  static final int RECORDS = 24;
  final OkHttpClient http =
      new OkHttpClient.Builder()
          .readTimeout(Duration.ofSeconds(5))
          .retryOnConnectionFailure(false)
          .connectionPool(SyncClient.connectionPool())
          .build();

  enum Fault {
    NONE,
    LOST_REPLY,
    UNAVAILABLE,
    RATE_LIMITED,
    DISCONNECT
  }

  @Property(seed = "3405", tries = 15)
  void repliesInAnyOrderAndAFailureAnywhereStoreTheInOrderPrefix(
      @ForAll @IntRange(min = 2, max = 4) int window,
      @ForAll @IntRange(min = 1, max = 6) int batch,
      @ForAll @Size(4) List<@IntRange(min = 0, max = 3) Integer> delayRanks,
      @ForAll @IntRange(min = 0, max = 3) int failAt,
      @ForAll Fault fault)
      throws Exception {
    int failed = Math.min(failAt, window - 1);
    Path dir = Files.createTempDirectory("window-prop");
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    MockWebServer web = new MockWebServer();
    try (TestDevice dev = TestDevice.create(dir, clock)) {
      List<CompletableFuture<CaptureAck>> acks = new ArrayList<>();
      for (int i = 0; i < RECORDS; i++) {
        acks.add(dev.capture.submit(dev.request("u", i, "m" + i)));
      }
      for (CompletableFuture<CaptureAck> a : acks) {
        CaptureService.await(a);
      }
      FakeWitness witness =
          new FakeWitness(
              "dev-1",
              NoteVerifier.ofEd25519(dev.identity.origin(), dev.identity.signer().publicKey()));
      witness.window = window;
      for (long from = 0; from < RECORDS; from += batch) {
        witness.replyDelayMillis.put(from, 40L * delayRanks.get((int) (from / batch) % 4));
      }
      long failedFrom = (long) failed * batch;
      Function<RecordedRequest, MockResponse> answer =
          switch (fault) {
            case NONE -> null;
            case LOST_REPLY -> witness::processThenDrop;
            case UNAVAILABLE -> r -> FakeWitness.problem(ErrorCode.REDIS_UNAVAILABLE, "x");
            case RATE_LIMITED -> r -> FakeWitness.problem(ErrorCode.RATE_LIMITED, "x");
            case DISCONNECT ->
                r -> new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AT_START);
          };
      if (answer != null) {
        witness.batchFaults.put(failedFrom, answer);
      }
      web.setDispatcher(witness);
      web.start();

      if (fault == Fault.NONE) {
        assertTrue(syncer(dev, web, witness, clock, window, batch, 1).sync().complete());
      } else {
        SyncStoppedException stopped =
            assertThrows(
                SyncStoppedException.class,
                () -> syncer(dev, web, witness, clock, window, batch, 1).sync());
        assertEquals(SyncStoppedException.Reason.UNREACHABLE, stopped.reason());
        for (StoredRecord rec : dev.store.records(0, RECORDS)) {
          if (rec.index() < failedFrom) {
            assertEquals("CONFIRMED", rec.outcome(), "before the failed batch: " + rec.index());
            assertEquals(rec.index() + 1, rec.seq());
          } else {
            assertNull(rec.outcome(), "from the failed batch on nothing is stored: " + rec);
          }
        }
      }

      long verifiedBefore = witness.verifiedSize();
      SyncReport next = syncer(dev, web, witness, clock, window, batch, 4).sync();
      assertTrue(next.complete(), next.toString());
      assertEquals(RECORDS - verifiedBefore, next.recordsSent(), "resumed at the server's size");
      assertEquals(RECORDS, witness.verifiedSize());
      for (StoredRecord rec : dev.store.records(0, RECORDS)) {
        assertEquals("CONFIRMED", rec.outcome(), "record " + rec.index());
        assertEquals(rec.index() + 1, rec.seq(), "the witness's answer for " + rec.index());
      }
    } finally {
      web.shutdown();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private Syncer syncer(
      TestDevice dev,
      MockWebServer web,
      FakeWitness witness,
      MutableClock clock,
      int window,
      int batch,
      int attempts) {
    SyncSettings s =
        SyncSettings.defaults().withBatchSize(batch).withMaxAttempts(attempts).withWindow(window);
    return Syncer.builder(
            dev.store,
            dev.identity,
            new SyncClient(http, web.url("/").toString(), clock),
            ReceiptVerifier.legacyOnly(witness.serverVerifier()),
            clock)
        .settings(s)
        .backoff(new Backoff(s.backoffBase(), s.backoffCap(), () -> 0.25))
        .sleeper(d -> {})
        .metadata(() -> new BatchMetadata(0, 0, 0, 0))
        .build();
  }
}
