package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.server.ingest.HeldCommits;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.testkit.TestDevice;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several batches of one device in flight, end to end over HTTP (docs/architecture.md §5, "Batches
 * in flight"), on a server started with {@code --batch-window 3}: the window is announced, a batch
 * that continues one still held is chained behind it and commits after it in device-log order, the
 * followers of a batch that fails are answered 409 with the verified size, a batch continuing none
 * held is 409 as before, and exactly the window is held while one more is 429. The first batch is
 * held inside its SQL transaction ({@link HeldCommits}); the batches sent meanwhile are seen held
 * through the {@code danmaku_batches_held} gauge.
 */
final class BatchWindowIT {
  private static final int WINDOW = 3;
  private static final Pattern HELD = Pattern.compile("(?m)^danmaku_batches_held (\\S+)$");
  private static final AtomicInteger ROOMS = new AtomicInteger();

  @TempDir static Path dir;
  static RedisFixture redis;
  static SyncServer server;
  static Api api;

  private ExecutorService pool;

  @BeforeAll
  static void start() throws Exception {
    redis = RedisFixture.embedded();
    server =
        SyncServer.start(
            ServerConfig.builder(dir).redisUri(redis.uri()).batchWindow(WINDOW).build());
    api = new Api(server.baseUri(), server.adminToken());
    HeldCommits.install(Database.h2Url(dir));
  }

  @AfterAll
  static void stop() {
    server.close();
    redis.close();
  }

  @BeforeEach
  void hold() {
    HeldCommits.entered = new CountDownLatch(1);
    HeldCommits.release = new CountDownLatch(1);
    pool = Executors.newCachedThreadPool();
  }

  @AfterEach
  void releaseAll() {
    HeldCommits.release.countDown();
    HeldCommits.held = null;
    HeldCommits.failing = null;
    pool.shutdownNow();
  }

  private static String room() {
    return "window-" + ROOMS.incrementAndGet();
  }

  private static TestDevice enrolled() {
    return api.enrollNew(server.enrollToken());
  }

  private Future<Api.Reply> send(TestDevice d, BatchRequest b) {
    return pool.submit(() -> api.batch(d, b));
  }

  /** Batches held by the server now, as its metrics say. */
  private static int held() {
    Matcher m = HELD.matcher(api.get("/metrics").body());
    assertTrue(m.find(), "no danmaku_batches_held gauge");
    return (int) Double.parseDouble(m.group(1));
  }

  private static void heldAre(int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (held() != n && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertEquals(n, held(), "batches held");
  }

  /** Sends {@code first} and holds it in its commit; then each of {@code more} once held. */
  private List<Future<Api.Reply>> heldThenChained(
      TestDevice d, BatchRequest first, List<BatchRequest> more) throws InterruptedException {
    HeldCommits.held = d.id;
    List<Future<Api.Reply>> replies = new ArrayList<>();
    replies.add(send(d, first));
    assertTrue(HeldCommits.entered.await(30, TimeUnit.SECONDS), "first batch not committing");
    heldAre(1);
    for (BatchRequest b : more) {
      replies.add(send(d, b));
      heldAre(replies.size());
    }
    return replies;
  }

  private static void ok(Api.Reply r, long verifiedSize) {
    assertEquals(200, r.status(), r.toString());
    BatchResponse b = r.as(BatchResponse.class);
    assertEquals(verifiedSize, b.verifiedSize(), r.toString());
    for (RecordOutcome o : b.outcomes()) {
      assertEquals(Outcome.CONFIRMED, o.outcome(), o.toString());
    }
  }

  private static void sizeMismatch(Api.Reply r, long verifiedSize) {
    assertEquals(409, r.status(), r.toString());
    assertEquals("size-mismatch", r.code(), r.toString());
    assertEquals(verifiedSize, r.json().path("verifiedSize").asLong(), r.toString());
  }

  private static String windowHeader(HttpRequest.Builder request) throws Exception {
    HttpResponse<String> r =
        api.client()
            .send(
                request.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    return r.headers().firstValue("Danmaku-Batch-Window").orElse("(none)");
  }

  @Test
  void chainedBatchesCommitAfterTheirPredecessorInDeviceLogOrder() throws Exception {
    TestDevice d = enrolled();
    String room = room();
    BatchRequest a = d.batch(d.record(room, "u", "a0"), d.record(room, "u", "a1"));
    BatchRequest b = d.batch(d.record(room, "u", "b0"), d.record(room, "u", "b1"));
    BatchRequest c = d.batch(d.record(room, "u", "c0"));
    List<Future<Api.Reply>> replies = heldThenChained(d, a, List.of(b, c));
    HeldCommits.release.countDown();
    ok(replies.get(0).get(), 2);
    ok(replies.get(1).get(), 4);
    ok(replies.get(2).get(), 5);
    List<RoomMessage> page =
        api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages();
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < page.size(); i++) {
      assertEquals(i + 1, page.get(i).seq(), page.toString());
      texts.add(page.get(i).text());
    }
    assertEquals(List.of("a0", "a1", "b0", "b1", "c0"), texts, "numbered in device-log order");
    heldAre(0);
  }

  @Test
  void theFollowersOfABatchThatFailsAre409WithTheVerifiedSize() throws Exception {
    TestDevice d = enrolled();
    String room = room();
    ok(api.batch(d, d.batch(d.record(room, "u", "stored first"))), 1);
    BatchRequest a = d.batch(d.record(room, "u", "a"));
    BatchRequest b = d.batch(d.record(room, "u", "b"));
    BatchRequest c = d.batch(d.record(room, "u", "c"));
    List<Future<Api.Reply>> replies = heldThenChained(d, a, List.of(b, c));
    HeldCommits.failing = d.id;
    HeldCommits.release.countDown();
    assertEquals(503, replies.get(0).get().status(), replies.get(0).get().toString());
    sizeMismatch(replies.get(1).get(), 1);
    sizeMismatch(replies.get(2).get(), 1);
    HeldCommits.failing = null;
    ok(api.batch(d, d.resend(1, 2)), 2);
    ok(api.batch(d, d.resend(2, 3)), 3);
    ok(api.batch(d, d.resend(3, 4)), 4);
  }

  @Test
  void aBatchContinuingNoneHeldIs409AsBefore() throws Exception {
    TestDevice d = enrolled();
    String room = room();
    d.batch(d.record(room, "u", "never sent"));
    Api.Reply r = api.batch(d, d.batch(d.record(room, "u", "sent")));
    sizeMismatch(r, 0);
    assertEquals(Integer.toString(WINDOW), r.header("Danmaku-Batch-Window"));
  }

  @Test
  void exactlyTheWindowIsHeldAndOneMoreIsRateLimited() throws Exception {
    TestDevice d = enrolled();
    String room = room();
    List<BatchRequest> batches = new ArrayList<>();
    for (int i = 0; i <= WINDOW; i++) {
      batches.add(d.batch(d.record(room, "u", "m" + i)));
    }
    List<Future<Api.Reply>> replies =
        heldThenChained(d, batches.get(0), batches.subList(1, WINDOW));
    Api.Reply refused = api.batch(d, batches.get(WINDOW));
    assertEquals(429, refused.status(), refused.toString());
    assertEquals("rate-limited", refused.code(), refused.toString());
    assertEquals("1", refused.retryAfter());
    assertEquals(WINDOW, refused.json().path("batchWindow").asInt(), refused.toString());
    assertTrue(
        refused.json().path("detail").asText().contains("keep at most " + WINDOW + " in flight"),
        refused.toString());
    assertEquals(WINDOW, held(), "the refused batch is not held");
    HeldCommits.release.countDown();
    for (int i = 0; i < WINDOW; i++) {
      ok(replies.get(i).get(), i + 1);
    }
    ok(api.batch(d, batches.get(WINDOW)), WINDOW + 1);
  }

  @Test
  void bothEndpointsAnnounceTheWindowInEveryAnswer() throws Exception {
    TestDevice d = enrolled();
    String window = Integer.toString(WINDOW);
    String log = "/v1/devices/" + d.id + "/log";
    assertEquals(window, windowHeader(HttpRequest.newBuilder(server.baseUri().resolve(log))));
    assertEquals(
        window,
        windowHeader(
            HttpRequest.newBuilder(server.baseUri().resolve(log))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())));
    String batches = "/v1/devices/" + d.id + "/batches";
    Api.Reply accepted = api.batch(d, d.batch(d.record(room(), "u", "x")));
    assertEquals(200, accepted.status(), accepted.toString());
    assertEquals(window, accepted.header("Danmaku-Batch-Window"));
    Api.Reply malformed =
        api.postRaw(batches, "{".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertEquals(400, malformed.status(), malformed.toString());
    assertEquals(window, malformed.header("Danmaku-Batch-Window"));
    assertEquals(
        "(none)",
        windowHeader(
            HttpRequest.newBuilder(server.baseUri().resolve("/v1/devices/" + d.id + "/acks"))),
        "only the batch and log endpoints announce it");
  }
}
