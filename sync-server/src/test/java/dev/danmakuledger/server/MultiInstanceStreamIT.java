package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.admin.ClusterHistory;
import dev.danmakuledger.protocol.wire.admin.InstanceList;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.server.events.StreamLimits;
import dev.danmakuledger.server.storage.MariaDbDatabase;
import dev.danmakuledger.testkit.TestDevice;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two sync-server instances on one SQL database (an H2 file in server mode, or MariaDB with {@code
 * DANMAKU_TEST_JDBC_URL}) and one Redis, sharing the data directory's keys and tokens
 * (docs/operations.md, "Several instances"): room streams on either instance deliver every message
 * synced through either, once and in cursor order (docs/sync-server.md, "Room streams").
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
final class MultiInstanceStreamIT {
  private static final AtomicInteger ROOMS = new AtomicInteger();
  private static final int BUFFER = 200;

  @TempDir static Path dir;
  static RedisFixture redis;
  static MariaDbDatabase mariadb;
  static SyncServer a;
  static SyncServer b;
  static Api apiA;
  static Api apiB;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    redis = RedisFixture.embedded();
    String url;
    if (MariaDbDatabase.configured()) {
      mariadb = MariaDbDatabase.create();
      url = mariadb.url();
    } else {
      url =
          "jdbc:h2:file:"
              + dir.resolve("shared-db").toAbsolutePath()
              + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;AUTO_SERVER=TRUE";
    }
    ServerConfig config =
        ServerConfig.builder(dir.resolve("data"))
            .redisUri(redis.uri())
            .jdbc(url, null, null)
            .streamLimits(new StreamLimits(BUFFER, Duration.ofMillis(300), 1_000))
            .build();
    a = SyncServer.start(config);
    b = SyncServer.start(config);
    apiA = new Api(a.baseUri(), a.adminToken());
    apiB = new Api(b.baseUri(), b.adminToken());
  }

  @AfterAll
  static void stop() throws Exception {
    if (b != null) {
      b.close();
    }
    if (a != null) {
      a.close();
    }
    redis.close();
    if (mariadb != null) {
      mariadb.close();
    }
  }

  static String room() {
    return "multi-" + ROOMS.incrementAndGet();
  }

  static TestDevice enroll(String id) {
    TestDevice d = TestDevice.create(id + "-" + ROOMS.incrementAndGet());
    apiA.enroll(d, a.enrollToken());
    return d;
  }

  /**
   * Syncs {@code n} messages of {@code d} to {@code room} through {@code api}, {@code per} a batch.
   */
  static void post(Api api, TestDevice d, String room, int n, int per) {
    post(api, d, room, n, per, 80);
  }

  static void post(Api api, TestDevice d, String room, int n, int per, int padding) {
    for (int sent = 0; sent < n; sent += per) {
      List<DanmakuRecord> records = new ArrayList<>();
      for (int i = 0; i < Math.min(per, n - sent); i++) {
        records.add(d.record(room, "viewer", "hello " + (sent + i) + " " + "x".repeat(padding)));
      }
      Api.Reply r = api.batch(d, d.batch(records.toArray(new DanmakuRecord[0])));
      assertEquals(200, r.status(), r.toString());
      r.as(BatchResponse.class);
    }
  }

  /** Cursors 1..n, each once, in order. */
  static void assertCursors(long from, long to, List<SseEvents.Event> events) {
    List<Long> want = new ArrayList<>();
    for (long c = from; c <= to; c++) {
      want.add(c);
    }
    assertEquals(want, events.stream().map(SseEvents.Event::cursor).toList());
  }

  @Test
  void theHistoryOfEitherInstanceSumsTheBatchesOfBoth() {
    String room = room();
    post(apiA, enroll("hist-a"), room, 6, 2);
    post(apiB, enroll("hist-b"), room, 9, 3);
    assertTrue(a.sampleHistoryNow());
    assertTrue(b.sampleHistoryNow());
    ClusterHistory fromA = apiA.admin("/admin/history?minutes=30").as(ClusterHistory.class);
    ClusterHistory fromB = apiB.admin("/admin/history?minutes=30").as(ClusterHistory.class);
    Overview overview = apiA.admin("/admin/overview").as(Overview.class);
    long batches = fromA.points().stream().mapToLong(ClusterHistory.Minute::batches).sum();
    assertEquals(overview.batches(), batches, "the SQL batch counter is the sum of both samples");
    assertTrue(batches >= 6, "both instances' batches are in: " + batches);
    assertEquals(2, fromA.points().get(fromA.points().size() - 1).instances());
    assertEquals(
        fromA.points().get(fromA.points().size() - 1).batches(),
        fromB.points().get(fromB.points().size() - 1).batches(),
        "both instances serve the same cluster-wide sums");
  }

  @Test
  void subscribersOnBothInstancesGetEveryMessageSyncedThroughEitherOnceInOrder() throws Exception {
    String room = room();
    List<SseEvents> subs = new ArrayList<>();
    for (SyncServer s : List.of(a, b, a, b)) {
      subs.add(SseEvents.open(HTTP, s.baseUri(), room, null));
    }
    TestDevice d1 = enroll("multi-a");
    TestDevice d2 = enroll("multi-b");
    CompletableFuture<Void> viaA = CompletableFuture.runAsync(() -> post(apiA, d1, room, 300, 10));
    CompletableFuture<Void> viaB = CompletableFuture.runAsync(() -> post(apiB, d2, room, 300, 10));
    viaA.get();
    viaB.get();
    for (SseEvents s : subs) {
      List<SseEvents.Event> got = s.take(600);
      assertCursors(1, 600, got);
      assertEquals(List.of(), s.drain(1, Duration.ofMillis(500)), "delivered more than once");
      s.close();
    }
  }

  @Test
  void aReconnectWithLastEventIdOnTheOtherInstanceResumesExactly() throws Exception {
    String room = room();
    TestDevice d = enroll("multi-resume");
    SseEvents first = SseEvents.open(HTTP, b.baseUri(), room, null);
    post(apiA, d, room, 120, 20);
    List<SseEvents.Event> head = first.take(70);
    first.close();
    assertCursors(1, 70, head);
    post(apiB, d, room, 80, 20);
    SseEvents resumed = SseEvents.open(HTTP, a.baseUri(), room, head.get(69).id());
    assertCursors(71, 200, resumed.take(130));
    assertEquals(List.of(), resumed.drain(1, Duration.ofMillis(500)), "delivered twice");
    resumed.close();
  }

  @Test
  void aStalledSubscriberIsCutOffWithItsResumePointWhileOthersKeepReceiving() throws Exception {
    String room = room();
    TestDevice d = enroll("multi-stall");
    SseEvents onA = SseEvents.open(HTTP, a.baseUri(), room, null);
    SseEvents onB = SseEvents.open(HTTP, b.baseUri(), room, null);
    try (StalledSubscriber stalled = new StalledSubscriber(b.baseUri(), room)) {
      int total = 4_000;
      int per = 20;
      List<SseEvents.Event> gotA = new ArrayList<>();
      List<SseEvents.Event> gotB = new ArrayList<>();
      for (int sent = 0; sent < total; sent += per) {
        // in step with the healthy subscribers, so that neither is ever more than a batch behind
        // however slow the machine, while the stalled one falls further behind with every batch
        post(apiA, d, room, per, per, 280);
        gotA.addAll(onA.take(per));
        gotB.addAll(onB.take(per));
      }
      assertCursors(1, total, gotA);
      assertCursors(1, total, gotB);

      List<SseEvents.Event> got = stalled.readToEnd();
      SseEvents.Event last = got.get(got.size() - 1);
      assertEquals("resume", last.name(), "final event of a cut-off subscriber");
      List<SseEvents.Event> messages = got.subList(0, got.size() - 1);
      assertTrue(messages.size() < total, "cut off before the end, got " + messages.size());
      assertCursors(1, messages.size(), messages);
      assertEquals(Long.toString(messages.size()), last.id(), last.data());
      assertTrue(last.data().contains("too-slow"), last.data());

      SseEvents resumed = SseEvents.open(HTTP, b.baseUri(), room, last.id());
      assertCursors(messages.size() + 1, total, resumed.take(total - messages.size()));
      resumed.close();
    }
    onA.close();
    onB.close();
  }

  @Test
  void aWipedRedisMidRunStillDeliversEverythingFromSql() throws Exception {
    String room = room();
    TestDevice d = enroll("multi-wipe");
    SseEvents onA = SseEvents.open(HTTP, a.baseUri(), room, null);
    SseEvents onB = SseEvents.open(HTTP, b.baseUri(), room, null);
    post(apiA, d, room, 100, 10);
    redis.flushAll();
    post(apiB, d, room, 100, 10);
    assertCursors(1, 200, onA.take(200));
    assertCursors(1, 200, onB.take(200));
    onA.close();
    onB.close();
  }

  @Test
  void bothInstancesAreListedUpWithTheirAddresses() {
    Api.Reply r = apiB.admin("/admin/instances");
    assertEquals(200, r.status(), r.toString());
    List<InstanceList.Instance> up =
        r.as(InstanceList.class).instances().stream()
            .filter(i -> i.status() == InstanceList.Status.UP)
            .toList();
    List<String> addresses = up.stream().map(InstanceList.Instance::address).sorted().toList();
    assertEquals(
        List.of(a.baseUri().toString(), b.baseUri().toString()).stream().sorted().toList(),
        addresses);
    assertEquals(401, apiB.get("/admin/instances").status());
  }
}
