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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Exactly-once under any interleaving of lost replies, outages and refused connections: whatever
 * the network does to the requests of one run, the run ends with every record verified once, in
 * order, and with the outcome the witness gave it.
 */
class SyncerProperties {
  static final int RECORDS = 12;
  final OkHttpClient http =
      new OkHttpClient.Builder()
          .readTimeout(Duration.ofSeconds(5))
          .retryOnConnectionFailure(false)
          .build();

  enum Fault {
    NONE,
    LOST_REPLY,
    UNAVAILABLE,
    RATE_LIMITED,
    DISCONNECT
  }

  @Property(seed = "6061", tries = 10)
  void everyRecordIsVerifiedOnceWhateverTheNetworkDoes(
      @ForAll @Size(max = 12) List<Fault> faults, @ForAll @IntRange(min = 1, max = 7) int batch)
      throws Exception {
    Path dir = Files.createTempDirectory("syncer-prop");
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
      AtomicInteger failed = new AtomicInteger();
      for (Fault f : faults) {
        Function<RecordedRequest, MockResponse> answer =
            switch (f) {
              case NONE -> witness::pass;
              case LOST_REPLY -> witness::processThenDrop;
              case UNAVAILABLE ->
                  r ->
                      FakeWitness.problem(ErrorCode.REDIS_UNAVAILABLE, "x")
                          .setHeader("Retry-After", "1");
              case RATE_LIMITED -> r -> FakeWitness.problem(ErrorCode.RATE_LIMITED, "x");
              case DISCONNECT ->
                  r -> new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AT_START);
            };
        witness.fault(
            r -> {
              if (f != Fault.NONE) {
                failed.incrementAndGet();
              }
              return answer.apply(r);
            });
      }
      web.setDispatcher(witness);
      web.start();
      SyncSettings s =
          SyncSettings.defaults().withBatchSize(batch).withMaxAttempts(faults.size() + 2);
      List<Duration> waits = new ArrayList<>();
      SyncReport r =
          Syncer.builder(
                  dev.store,
                  dev.identity,
                  new SyncClient(http, web.url("/").toString(), clock),
                  ReceiptVerifier.legacyOnly(witness.serverVerifier()),
                  clock)
              .settings(s)
              .backoff(new Backoff(s.backoffBase(), s.backoffCap(), () -> 0.25))
              .sleeper(waits::add)
              .metadata(() -> new BatchMetadata(0, 0, 0, 0))
              .build()
              .sync();

      assertTrue(r.complete(), r + " with " + faults);
      assertEquals(RECORDS, witness.verifiedSize());
      for (StoredRecord rec : dev.store.records(0, RECORDS)) {
        assertEquals("CONFIRMED", rec.outcome());
        assertEquals(rec.index() + 1, rec.seq(), "the witness's answer for " + rec.index());
      }
      assertEquals(failed.get(), waits.size(), "one wait per failed request: " + faults);
      assertEquals(failed.get(), r.retries());
    } finally {
      web.shutdown();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
