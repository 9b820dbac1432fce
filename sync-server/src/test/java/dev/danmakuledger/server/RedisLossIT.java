package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.danmakuledger.lua.Admission;
import dev.danmakuledger.lua.AdmitItem;
import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.RedisKeys;
import dev.danmakuledger.lua.RetryPolicy;
import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis losing state or going away (docs/architecture.md §5): a forgotten key is still stored once
 * (the SQL guard answers DUPLICATE with the original and the burned number becomes a tombstone), a
 * lost room counter is re-seeded from SQL, numbers it handed out to batches that never committed
 * are sealed by the gap sealer, and while Redis is down batches get 503 with Retry-After and
 * nothing is half-written. Uses its own embedded Redis, so flushing and stopping it disturbs no
 * one.
 */
final class RedisLossIT {
  @TempDir static Path dir;
  static RedisFixture redis;
  static MutableClock clock = MutableClock.running();
  static SyncServer server;
  static Api api;

  @BeforeAll
  static void start() {
    redis = RedisFixture.embedded();
    server = SyncServer.start(ServerConfig.builder(dir).redisUri(redis.uri()).clock(clock).build());
    api = new Api(server.baseUri(), server.adminToken());
  }

  @AfterAll
  static void stop() {
    server.close();
    redis.close();
  }

  static TestDevice enroll(String id) {
    TestDevice d = TestDevice.create(id);
    api.enroll(d, server.enrollToken());
    return d;
  }

  static BatchResponse sync(TestDevice d, BatchRequest b) {
    return api.sync(d, b);
  }

  @Test
  void afterFlushAllTheSqlGuardAnswersDuplicateAndTheBurnedNumberIsATombstone() {
    TestDevice d = enroll("flush-dev");
    String room = "flush-room";
    DanmakuRecord a = d.record(room, "u1", "stored before the flush");
    BatchResponse first = sync(d, d.batch(a, d.record(room, "u1", "b")));
    RecordOutcome original = first.outcomes().get(0);
    Overview before = api.admin("/admin/overview").as(Overview.class);

    redis.flushAll();

    BatchResponse after = sync(d, d.batch(d.again(a), d.record(room, "u1", "new after the flush")));
    RecordOutcome dup = after.outcomes().get(0);
    assertEquals(Outcome.DUPLICATE, dup.outcome());
    assertEquals(original.seq(), dup.seq());
    assertEquals(original.messageId(), dup.messageId());
    assertEquals("CONFIRMED", dup.originalStatus());
    RecordOutcome fresh = after.outcomes().get(1);
    assertEquals(Outcome.CONFIRMED, fresh.outcome());
    assertEquals(4L, fresh.seq(), "counter re-seeded from SQL (2), seq 3 burned by the duplicate");

    List<RoomMessage> page =
        api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages();
    assertEquals(List.of(1L, 2L, 3L, 4L), page.stream().map(RoomMessage::seq).toList());
    assertEquals(RoomMessage.Status.TOMBSTONE, page.get(2).status());
    assertNull(page.get(2).idempotencyKey());
    assertEquals(
        1, page.stream().filter(m -> a.key().toString().equals(m.idempotencyKey())).count());
    Overview o = api.admin("/admin/overview").as(Overview.class);
    assertEquals(before.duplicates().sql() + 1, o.duplicates().sql());
  }

  @Test
  void aLostRoomCounterIsReseededFromSqlBeforeAnyNumberIsHandedOut() {
    TestDevice d = enroll("seed-dev");
    String room = "seed-room";
    sync(
        d,
        d.batch(d.record(room, "u1", "a"), d.record(room, "u1", "b"), d.record(room, "u1", "c")));
    try (RedisFixture.Raw raw = redis.connect()) {
      assertNotNull(raw.sync().hget(RedisKeys.counters(room), RedisKeys.field(room)));
      raw.sync().hdel(RedisKeys.counters(room), RedisKeys.field(room));
    }
    RecordOutcome next = sync(d, d.batch(d.record(room, "u1", "d"))).outcomes().get(0);
    assertEquals(4L, next.seq());
  }

  @Test
  void numbersHandedOutByAForgettingRedisForBatchesThatNeverCommittedAreSealedAfterT() {
    TestDevice d = enroll("gap-dev");
    String room = "gap-room";
    sync(d, d.batch(d.record(room, "u1", "a")));
    try (RedisFixture.Raw raw = redis.connect()) {
      raw.sync().hincrby(RedisKeys.counters(room), RedisKeys.field(room), 2);
    }
    assertEquals(4L, sync(d, d.batch(d.record(room, "u1", "b"))).outcomes().get(0).seq());
    redis.flushAll();
    assertEquals(5L, sync(d, d.batch(d.record(room, "u1", "c"))).outcomes().get(0).seq());
    assertEquals(
        List.of(1L, 4L, 5L),
        api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages().stream()
            .map(RoomMessage::seq)
            .toList(),
        "the holes stay open until they are older than --gap-seal-after");
    clock.advance(ServerConfig.DEFAULT_GAP_SEAL_AFTER);
    assertEquals(2, server.sealGapsNow());
    List<RoomMessage> page =
        api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages();
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), page.stream().map(RoomMessage::seq).toList());
    assertEquals(
        List.of(
            RoomMessage.Status.CONFIRMED,
            RoomMessage.Status.TOMBSTONE,
            RoomMessage.Status.TOMBSTONE,
            RoomMessage.Status.CONFIRMED,
            RoomMessage.Status.CONFIRMED),
        page.stream().map(RoomMessage::status).toList());
  }

  @Test
  void anOrphanedKeyWhoseNumberWasReusedGetsAFreshNumberInsteadOfCollidingForever()
      throws Exception {
    TestDevice d = enroll("orphan-dev");
    TestDevice other = enroll("orphan-other");
    String room = "orphan-room";
    sync(d, d.batch(d.record(room, "u1", "a")));
    DanmakuRecord b = d.record(room, "u1", "admitted, then the batch failed");
    try (DedupeScripts scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.defaults())) {
      Admission lost =
          scripts
              .admit(
                  room,
                  List.of(new AdmitItem(b.key().toString(), b.contentHash(), 77)),
                  Duration.ofHours(1))
              .get(0);
      assertEquals(2L, lost.seq());
    }
    try (RedisFixture.Raw raw = redis.connect()) {
      raw.sync().hdel(RedisKeys.counters(room), RedisKeys.field(room));
    }
    assertEquals(
        2L, sync(other, other.batch(other.record(room, "u2", "took 2"))).outcomes().get(0).seq());

    RecordOutcome stored = sync(d, d.batch(b)).outcomes().get(0);
    assertEquals(Outcome.CONFIRMED, stored.outcome());
    assertEquals(3L, stored.seq());
    RecordOutcome dup = sync(d, d.batch(d.again(b))).outcomes().get(0);
    assertEquals(Outcome.DUPLICATE, dup.outcome());
    assertEquals(3L, dup.seq());
    List<RoomMessage> page =
        api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages();
    assertEquals(List.of(1L, 2L, 3L), page.stream().map(RoomMessage::seq).toList());
    assertEquals(b.key().toString(), page.get(2).idempotencyKey());
  }

  @Test
  void whileRedisIsDownBatchesGet503WithRetryAfterAndNothingIsStored() {
    TestDevice d = enroll("down-dev");
    String room = "down-room";
    sync(d, d.batch(d.record(room, "u1", "a")));
    BatchRequest pending = d.batch(d.record(room, "u1", "while down"));
    redis.stopServer();
    try {
      Api.Reply r = api.batch(d, pending);
      assertEquals(503, r.status(), r.toString());
      assertEquals("redis-unavailable", r.code());
      assertNotNull(r.retryAfter());
      Api.Reply ready = api.get("/readyz");
      assertEquals(503, ready.status());
      assertEquals("DOWN", ready.json().get("redis").asText());
      assertEquals(1, api.get("/v1/devices/" + d.id + "/log").as(LogState.class).verifiedSize());
    } finally {
      redis.startServer();
    }
    BatchResponse resumed = null;
    for (int attempt = 0; attempt < 30 && resumed == null; attempt++) {
      Api.Reply r = api.batch(d, pending);
      if (r.status() == 200) {
        resumed = r.as(BatchResponse.class);
      } else {
        assertEquals(503, r.status(), r.toString());
      }
    }
    assertNotNull(resumed, "Redis came back but batches still fail");
    assertEquals(Outcome.CONFIRMED, resumed.outcomes().get(0).outcome());
    assertEquals(2L, resumed.outcomes().get(0).seq());
  }
}
