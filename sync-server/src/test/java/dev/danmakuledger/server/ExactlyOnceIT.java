package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.RedisKeys;
import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once under partial failure, end to end over HTTP (docs/architecture.md §5 and §10): a
 * room counter behind SQL, a Redis memory without an SQL row, input that SQL cannot hold, numbers
 * burned by failed or forked batches, and records the server can never accept. Each test reproduces
 * one way the promise "every number 1..high is a message or a tombstone, every key stored once,
 * nothing acknowledged is lost" used to break.
 */
final class ExactlyOnceIT {
  private static final AtomicInteger ROOMS = new AtomicInteger();

  @TempDir static Path dir;
  static RedisFixture redis;
  static MutableClock clock;
  static SyncServer server;
  static Api api;

  @BeforeAll
  static void start() throws SQLException {
    redis = RedisFixture.embedded();
    clock = MutableClock.running();
    server =
        SyncServer.start(
            ServerConfig.builder(dir)
                .redisUri(redis.uri())
                .clock(clock)
                .gapSealAfter(Duration.ofSeconds(30))
                .build());
    api = new Api(server.baseUri(), server.adminToken());
    FailingCommits.install(Database.h2Url(dir));
  }

  @AfterAll
  static void stop() {
    server.close();
    redis.close();
  }

  @AfterEach
  void commitsWorkAgain() {
    FailingCommits.failing = false;
  }

  static String room(String base) {
    return base + "-" + ROOMS.incrementAndGet();
  }

  static TestDevice enroll(String id) {
    TestDevice d = TestDevice.create(id);
    api.enroll(d, server.enrollToken());
    return d;
  }

  static BatchResponse sync(TestDevice d, BatchRequest b) {
    return api.sync(d, b);
  }

  /** Posts a batch while SQL commits fail: Redis admits it, SQL stores nothing. */
  static void failInSql(TestDevice d, BatchRequest b) {
    FailingCommits.failing = true;
    try {
      Api.Reply r = api.batch(d, b);
      assertEquals(503, r.status(), r.toString());
    } finally {
      FailingCommits.failing = false;
    }
  }

  static List<RoomMessage> page(String room) {
    return api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages();
  }

  static String tombstoneReason(String room, long seq) throws SQLException {
    try (Connection c = DriverManager.getConnection(Database.h2Url(dir));
        PreparedStatement ps =
            c.prepareStatement("SELECT status, reason FROM messages WHERE room = ? AND seq = ?")) {
      ps.setString(1, room);
      ps.setLong(2, seq);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next(), "no slot " + seq + " in " + room);
        assertEquals("TOMBSTONE", rs.getString(1));
        return rs.getString(2);
      }
    }
  }

  /** The message a DUPLICATE or CONFLICT outcome names exists under every lookup. */
  static void assertResolves(RecordOutcome o) {
    assertEquals(200, api.get("/v1/messages/" + o.idempotencyKey()).status(), o.toString());
    assertEquals(200, api.get("/v1/messages/by-id/" + o.messageId()).status(), o.toString());
    assertNotNull(o.room(), o.toString());
    assertEquals(200, api.get("/v1/rooms/" + o.room() + "/messages/" + o.seq()).status());
  }

  @Test
  void aRoomCounterBehindSqlIsReseededAtTheFirstCollisionAndTheBatchConverges() {
    TestDevice d = enroll("behind-dev");
    String room = room("behind");
    List<DanmakuRecord> six = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      six.add(d.record(room, "u1", "m" + i));
    }
    sync(d, d.batch(six.toArray(DanmakuRecord[]::new)));
    try (RedisFixture.Raw raw = redis.connect()) {
      raw.sync().hset(RedisKeys.counters(room), RedisKeys.field(room), "0");
    }

    BatchResponse r = sync(d, d.batch(d.record(room, "u1", "after the rollback")));

    assertEquals(Outcome.CONFIRMED, r.outcomes().get(0).outcome());
    assertEquals(7L, r.outcomes().get(0).seq());
    assertEquals(8L, sync(d, d.batch(d.record(room, "u1", "next"))).outcomes().get(0).seq());
    assertEquals(
        List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L),
        page(room).stream().map(RoomMessage::seq).toList());
  }

  @Test
  void aRedisMemoryOfAKeyWithoutSqlRowIsStoredAsNewNotAnsweredAsPhantomConflict() {
    TestDevice d = enroll("phantom-dev");
    TestDevice restored = d.cloneDevice();
    String room = room("phantom");
    DanmakuRecord a = d.record(room, "u1", "admitted, then the commit failed");
    failInSql(d, d.batch(a));

    DanmakuRecord b = restored.conflicting(a, "other content, same key");
    RecordOutcome stored = sync(restored, restored.batch(b)).outcomes().get(0);

    assertEquals(Outcome.CONFIRMED, stored.outcome(), stored.toString());
    assertEquals(1L, stored.seq());
    assertEquals(200, api.get("/v1/messages/" + a.key()).status());
    assertEquals(200, api.get("/v1/rooms/" + room + "/messages/1").status());
    RecordOutcome conflict = sync(restored, restored.batch(restored.again(a))).outcomes().get(0);
    assertEquals(Outcome.CONFLICT, conflict.outcome(), conflict.toString());
    assertEquals(stored.seq(), conflict.seq());
    assertEquals(stored.messageId(), conflict.messageId());
    assertEquals(room, conflict.room());
    assertResolves(conflict);
  }

  @Test
  void aCheckpointNoteTooLongForSqlIsRefusedWith400BeforeAnythingIsAdmitted() {
    TestDevice d = enroll("long-note-dev");
    String room = room("long-note");
    DanmakuRecord a = d.record(room, "u1", "first");
    BatchRequest b = d.batch(a);
    String note = b.checkpoint();
    SecureRandom random = new SecureRandom();
    while (note.length() < 3_434) {
      note = SignedNote.addSignature(note, NoteSigner.generate("witness-" + note.length(), random));
    }
    BatchRequest longNote = new BatchRequest(b.oldSize(), b.records(), note, b.metadata());

    Api.Reply r = api.batch(d, longNote);

    assertEquals(400, r.status(), r.toString());
    assertEquals("invalid-field", r.code());
    assertTrue(r.toString().contains("checkpoint"), r.toString());
    try (RedisFixture.Raw raw = redis.connect()) {
      assertEquals(Map.of(), raw.dedupeEntries(room), "no dedupe entry of the room");
    }
    assertEquals(1L, sync(d, b).outcomes().get(0).seq());
  }

  @Test
  void numbersOfALosingCloneBecomeTombstonesOnceTheGapSealerSeesThemOlderThanT()
      throws SQLException {
    TestDevice d = enroll("clone-dev");
    TestDevice clone = d.cloneDevice();
    String room = room("clone");
    List<DanmakuRecord> lost = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      lost.add(clone.record(room, "u2", "clone " + i));
    }
    BatchRequest cloneBatch = clone.batch(lost.toArray(DanmakuRecord[]::new));
    failInSql(clone, cloneBatch);
    List<DanmakuRecord> won = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      won.add(d.record(room, "u1", "original " + i));
    }
    BatchResponse winner = sync(d, d.batch(won.toArray(DanmakuRecord[]::new)));
    assertEquals(6L, winner.outcomes().get(0).seq());
    assertEquals(409, api.batch(d, cloneBatch).status());

    assertEquals(0, server.sealGapsNow(), "holes younger than T stay open");
    clock.advance(Duration.ofSeconds(31));
    assertEquals(5, server.sealGapsNow());
    assertEquals(0, server.sealGapsNow(), "sealing twice changes nothing");

    List<RoomMessage> slots = page(room);
    assertEquals(
        List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L), slots.stream().map(RoomMessage::seq).toList());
    for (long seq = 1; seq <= 5; seq++) {
      assertEquals(RoomMessage.Status.TOMBSTONE, slots.get((int) seq - 1).status());
      assertEquals("gap-sealed", tombstoneReason(room, seq));
    }
  }

  @Test
  void aLateRetryOfARecordWhoseNumberWasSealedGetsAFreshNumber() {
    TestDevice d = enroll("late-dev");
    TestDevice other = enroll("late-other");
    String room = room("late");
    BatchRequest late = d.batch(d.record(room, "u1", "retried after the seal"));
    failInSql(d, late);
    assertEquals(
        2L, sync(other, other.batch(other.record(room, "u2", "x"))).outcomes().get(0).seq());
    clock.advance(Duration.ofSeconds(31));
    assertEquals(1, server.sealGapsNow());

    RecordOutcome o = sync(d, late).outcomes().get(0);

    assertEquals(Outcome.CONFIRMED, o.outcome());
    assertEquals(3L, o.seq());
    assertEquals(
        List.of(
            RoomMessage.Status.TOMBSTONE,
            RoomMessage.Status.CONFIRMED,
            RoomMessage.Status.CONFIRMED),
        page(room).stream().map(RoomMessage::status).toList());
  }

  @Test
  void aRecordTheServerCanNeverAcceptIsRejectedInPlaceAndTheDeviceSyncsPastIt() {
    TestDevice d = enroll("never-dev");
    String room = room("never");
    byte[] oversized = new byte[CanonicalRecord.MAX_ENCODED_LENGTH + 1];
    Arrays.fill(oversized, (byte) 7);
    byte[] garbage = {CanonicalRecord.VERSION_1, 1, 2, 3};
    List<byte[]> leaves =
        List.of(d.record(room, "u1", "before").canonicalBytes(), oversized, new byte[0], garbage);
    BatchRequest b = d.batchOfBytes(leaves);

    BatchResponse r = sync(d, b);

    List<RecordOutcome> o = r.outcomes();
    assertEquals(Outcome.CONFIRMED, o.get(0).outcome());
    assertEquals(Outcome.REJECTED, o.get(1).outcome());
    assertEquals("oversized", o.get(1).reason());
    assertEquals(Outcome.REJECTED, o.get(2).outcome());
    assertEquals("empty", o.get(2).reason());
    assertEquals(Outcome.REJECTED, o.get(3).outcome());
    assertTrue(o.get(3).reason().startsWith("invalid-"), o.get(3).reason());
    assertEquals(4, r.verifiedSize());
    BatchResponse next = sync(d, d.batch(d.record(room, "u1", "after")));
    assertEquals(2L, next.outcomes().get(0).seq());
    Api.Reply replay = api.batch(d, d.resend(0, 4));
    assertEquals(200, replay.status(), replay.toString());
    assertEquals(o, replay.as(BatchResponse.class).outcomes());
    assertFalse(o.stream().anyMatch(x -> x.outcome() == Outcome.DUPLICATE));
  }
}
