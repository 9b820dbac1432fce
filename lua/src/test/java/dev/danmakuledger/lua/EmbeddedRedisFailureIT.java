package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.Admission.Status;
import dev.danmakuledger.lua.testing.RedisFixture;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failures that need a Redis this test owns: restarts (lost counters and script cache), a dead
 * server, and the scripts' own argument checks called directly with EVAL.
 */
class EmbeddedRedisFailureIT {
  private static final Duration TTL = Duration.ofMinutes(5);
  private RedisFixture redis;

  @BeforeEach
  void start() {
    redis = RedisFixture.embedded();
  }

  @AfterEach
  void stop() {
    redis.close();
  }

  @Test
  void anAdmitLargerThanOneRunHoldsRedisForOneRunAtATime() throws Exception {
    List<String> rooms = roomsOfOneBucket("big", 2);
    String room = rooms.get(0);
    String other = rooms.get(1);
    try (DedupeScripts scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.none());
        RedisFixture.Raw raw = redis.connect()) {
      scripts.seed(room, 0);
      scripts.seed(other, 0);
      scripts.admit(other, List.of(new AdmitItem("load", "aa", 99_999)), TTL); // script loaded
      List<AdmitItem> items = new ArrayList<>();
      for (int i = 0; i < 2 * DedupeScripts.MAX_ITEMS_PER_RUN + 1; i++) {
        items.add(new AdmitItem("k" + i, "aa", i + 1));
      }
      long before = scriptRuns(raw);
      scripts.admit(room, items, TTL);
      assertEquals(3, scriptRuns(raw) - before, "three runs for two runs' worth and one item");
      List<AdmitItem> more = new ArrayList<>();
      for (int i = 0; i < DedupeScripts.MAX_ITEMS_PER_RUN + 1; i++) {
        more.add(new AdmitItem("m" + i, "aa", 10_000 + i));
      }
      Map<String, List<AdmitItem>> byRoom = new LinkedHashMap<>();
      byRoom.put(room, more);
      byRoom.put(other, List.of(items.get(0)));
      before = scriptRuns(raw);
      scripts.admitRooms(byRoom, TTL);
      assertEquals(
          2,
          scriptRuns(raw) - before,
          "a full run for the first room, then its last item and the other room's in one");
      assertEquals(2 * DedupeScripts.MAX_ITEMS_PER_RUN + 1 + more.size(), scripts.currentSeq(room));
      assertEquals(2, scripts.currentSeq(other));
    }
  }

  @Test
  void theRoomsOfOneBucketAreAdmittedInOneRunUpToTheRunsItems() throws Exception {
    int perRoom = 10;
    List<String> rooms = roomsOfOneBucket("many", DedupeScripts.MAX_ITEMS_PER_RUN / perRoom + 1);
    String last = rooms.get(rooms.size() - 1);
    try (DedupeScripts scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.none());
        RedisFixture.Raw raw = redis.connect()) {
      scripts.seed("loaded", 0); // both scripts loaded before anything is counted
      scripts.admit("loaded", List.of(new AdmitItem("k", "aa", 1)), TTL);
      Map<String, Long> floors = new LinkedHashMap<>();
      rooms.forEach(room -> floors.put(room, 7L));
      long before = scriptRuns(raw);
      assertEquals(rooms.size(), scripts.seedRooms(floors));
      assertEquals(1, scriptRuns(raw) - before, "one seed run for the bucket's rooms");
      Map<String, List<AdmitItem>> full = new LinkedHashMap<>();
      long id = 2;
      for (String room : rooms.subList(0, rooms.size() - 1)) {
        List<AdmitItem> items = new ArrayList<>();
        for (int i = 0; i < perRoom; i++) {
          items.add(new AdmitItem("k" + i, "aa", id++));
        }
        full.put(room, items);
      }
      before = scriptRuns(raw);
      DedupeScripts.RoomAdmissions got = scripts.admitRooms(full, TTL);
      assertEquals(
          1, scriptRuns(raw) - before, DedupeScripts.MAX_ITEMS_PER_RUN + " items: one run");
      for (String room : full.keySet()) {
        List<Admission> answers = got.admitted().get(room);
        for (int i = 0; i < perRoom; i++) {
          assertEquals(
              new Admission(Status.NEW, 8 + i, full.get(room).get(i).candidateMessageId()),
              answers.get(i),
              room + " #" + i);
        }
      }
      full.put(last, List.of(new AdmitItem("k0", "aa", id)));
      before = scriptRuns(raw);
      got = scripts.admitRooms(full, TTL);
      assertEquals(
          2, scriptRuns(raw) - before, DedupeScripts.MAX_ITEMS_PER_RUN + 1 + " items: two runs");
      assertEquals(new Admission(Status.NEW, 8, id), got.admitted().get(last).get(0));
      assertTrue(got.admitted().get(rooms.get(0)).get(0).isReplayOf(full.get(rooms.get(0)).get(0)));
    }
  }

  /** {@code n} room names that fall in one bucket. */
  private static List<String> roomsOfOneBucket(String base, int n) {
    List<String> rooms = new ArrayList<>();
    int bucket = RedisKeys.bucket(base + "-0");
    for (int i = 0; rooms.size() < n; i++) {
      if (RedisKeys.bucket(base + "-" + i) == bucket) {
        rooms.add(base + "-" + i);
      }
    }
    return rooms;
  }

  /** Script runs Redis counted so far ({@code EVAL} and {@code EVALSHA} calls). */
  private static long scriptRuns(RedisFixture.Raw raw) {
    long runs = 0;
    for (String line : raw.sync().info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
        String calls = line.substring(line.indexOf("calls=") + 6);
        runs += Long.parseLong(calls.substring(0, calls.indexOf(',')));
      }
    }
    return runs;
  }

  @Test
  void restartLosesCounterSoAdmitAsksForSeedThenContinuesFromTheFloor() throws Exception {
    List<Duration> waits = new ArrayList<>();
    RetryPolicy policy =
        RetryPolicy.exponential(8, Duration.ofMillis(100), Duration.ofSeconds(1))
            .withPause(
                d -> {
                  waits.add(d);
                  Thread.sleep(Math.min(d.toMillis(), 200));
                })
            .withRandom(() -> 0.5);
    try (DedupeScripts scripts = DedupeScripts.standalone(redis.uri(), policy)) {
      scripts.seed("room", 0);
      scripts.admit(
          "room", List.of(new AdmitItem("k1", "aa", 1), new AdmitItem("k2", "aa", 2)), TTL);
      redis.stopServer();
      redis.startServer();
      assertThrows(
          NeedSeedException.class,
          () -> scripts.admit("room", List.of(new AdmitItem("k3", "aa", 3)), TTL));
      assertEquals(-1, scripts.currentSeq("room"));
      assertTrue(scripts.seed("room", 2));
      Admission got = scripts.admit("room", List.of(new AdmitItem("k3", "aa", 3)), TTL).get(0);
      assertEquals(new Admission(Status.NEW, 3, 3), got);
    }
  }

  @Test
  void deadServerIsRedisUnavailableAfterBoundedRetries() throws Exception {
    List<Duration> waits = new ArrayList<>();
    RetryPolicy policy =
        RetryPolicy.exponential(4, Duration.ofMillis(10), Duration.ofMillis(40))
            .withPause(waits::add)
            .withRandom(() -> 0.999);
    try (DedupeScripts scripts = DedupeScripts.standalone(redis.uri(), policy)) {
      scripts.seed("room", 0);
      redis.stopServer();
      RedisUnavailableException e =
          assertThrows(
              RedisUnavailableException.class,
              () -> scripts.admit("room", List.of(new AdmitItem("k", "aa", 1)), TTL));
      assertEquals(RedisUnavailableException.Reason.CONNECTION, e.reason());
      assertEquals(4, e.attempts());
      assertEquals(3, waits.size(), "a wait before each retry");
      assertTrue(waits.get(2).toMillis() <= 40, "capped: " + waits);
    }
  }

  @Test
  void unreachableServerFailsFastOnOpen() {
    int port = RedisFixture.freePort();
    assertThrows(
        RedisUnavailableException.class,
        () -> DedupeScripts.standalone("redis://127.0.0.1:" + port, RetryPolicy.none()));
  }

  @Test
  void scriptsRefuseMalformedArgumentsWithBadarg() {
    String admit = LuaScript.bundled("admit").source();
    String seed = LuaScript.bundled("seed").source();
    String lease = LuaScript.bundled("lease").source();
    try (RedisFixture.Raw raw = redis.connect()) {
      RedisCommands<String, String> c = raw.sync();
      c.hset("{b:x}:seq", "x", "0");
      String[] k = {"{b:x}:seq", "{b:x}:w:9", "{b:x}:w:8", "{b:x}:w:7"};
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "a", "aa");
      assertBadarg(c, admit, k, "0", "1", "x", "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "-5", "1", "x", "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "1e3", "1", "x", "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "99999999999999999", "1", "x", "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "1200", "0", "x", "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "1200", "1001", "x", "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "1200", "2", "x", "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "1200", "1", "", "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "1200", "1", "x:y", "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "1200", "1", "x".repeat(2305), "1", "a", "aa", "1");
      assertBadarg(c, admit, k, "1200", "1", "x", "0", "a", "aa", "1");
      assertBadarg(c, admit, k, "1200", "1", "x", "1001", "a", "aa", "1");
      assertBadarg(c, admit, k, "1200", "2", "x", "1", "a", "aa", "1", "x", "1", "b", "aa", "2");
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "", "aa", "1");
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "x".repeat(4097), "aa", "1");
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "a", "", "1");
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "a", "a|b", "1");
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "a", "x".repeat(129), "1");
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "a", "aa", "-1");
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "a", "aa", "9223372036854775808");
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "a", "aa", "12345678901234567890");
      assertBadarg(c, admit, k, "1200", "1", "x", "1", "a", "aa", "1", "extra");
      assertBadarg(c, admit, k, "1200");
      List<String> overfull = new ArrayList<>(List.of("1200", "2"));
      for (String room : List.of("x", "y")) {
        overfull.add(room);
        overfull.add("501");
        for (int i = 0; i < 501; i++) {
          overfull.addAll(List.of(room + i, "aa", Integer.toString(i)));
        }
      }
      assertBadarg(c, admit, k, overfull.toArray(new String[0]));
      assertBadarg(
          c, admit, new String[] {"{b:x}:seq", "{b:x}:w:9"}, "1200", "1", "x", "1", "a", "aa", "1");
      assertEquals(0L, c.exists("{b:x}:w:9"), "no BADARG call wrote anything");
      assertEquals("0", c.hget("{b:x}:seq", "x"));

      String[] s = {"{b:x}:seq"};
      assertBadarg(c, seed, s, "x", "-1");
      assertBadarg(c, seed, s, "x", "9007199254740992");
      assertBadarg(c, seed, s, "x", "1.5");
      assertBadarg(c, seed, s, "x:y", "1");
      assertBadarg(c, seed, s, "", "1");
      assertBadarg(c, seed, s, "x");
      assertBadarg(c, seed, s);
      assertEquals("0", c.hget("{b:x}:seq", "x"));

      String[] l = {"{dl:lease:t}:owners", "{dl:lease:t}:expiry"};
      assertBadarg(c, lease, l, "steal", "o", "1000");
      assertBadarg(c, lease, l, "take", "", "1000");
      assertBadarg(c, lease, l, "take", "o", "0");
      assertBadarg(c, lease, l, "take", "o", "86400001");
      assertBadarg(c, lease, l, "renew", "o", "1000", "1024");
      assertBadarg(c, lease, l, "renew", "o", "1000");
      assertBadarg(c, lease, l, "take", "o", "1000", "5");
    }
  }

  private static void assertBadarg(
      RedisCommands<String, String> c, String source, String[] keys, String... args) {
    RedisCommandExecutionException e =
        assertThrows(
            RedisCommandExecutionException.class,
            () -> c.eval(source, ScriptOutputType.MULTI, keys, args),
            () -> "args " + List.of(args));
    assertTrue(e.getMessage().startsWith("BADARG"), e.getMessage());
  }

  @Test
  void allNodeIdsLeasedIsNoFreeId() {
    try (DedupeScripts scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.none())) {
      for (int i = 0; i < 1024; i++) {
        assertEquals(i, scripts.leaseNodeId("owner-" + i, Duration.ofMinutes(1)));
      }
      ScriptException e =
          assertThrows(
              ScriptException.class,
              () -> scripts.leaseNodeId("one-too-many", Duration.ofMinutes(1)));
      assertEquals("NOFREEID", e.code());
    }
  }

  @Test
  void malformedAndOversizedCallsAreRefusedBeforeReachingRedis() throws Exception {
    try (DedupeScripts scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.none())) {
      List<AdmitItem> one = List.of(new AdmitItem("k", "aa", 1));
      assertThrows(IllegalArgumentException.class, () -> scripts.admit("", one, TTL));
      assertThrows(IllegalArgumentException.class, () -> scripts.admit("r".repeat(257), one, TTL));
      assertThrows(
          IllegalArgumentException.class, () -> scripts.admit("room", one, Duration.ofMillis(999)));
      assertThrows(
          IllegalArgumentException.class,
          () -> scripts.admit("room", one, Duration.ofSeconds(Integer.MAX_VALUE + 1L)));
      assertThrows(
          IllegalArgumentException.class,
          () -> scripts.admit("room", one, Duration.ofSeconds(Integer.MAX_VALUE, 1)),
          "rounds up past the limit");
      assertThrows(
          IllegalArgumentException.class,
          () ->
              scripts.admit(
                  "room", List.of(new AdmitItem("a", "aa", 7), new AdmitItem("b", "aa", 7)), TTL),
          "candidate ids must be unique per call");
      List<AdmitItem> tooMany = new ArrayList<>();
      for (int i = 0; i <= DedupeScripts.MAX_ITEMS; i++) {
        tooMany.add(new AdmitItem("k" + i, "aa", i));
      }
      assertThrows(IllegalArgumentException.class, () -> scripts.admit("room", tooMany, TTL));
      assertThrows(IllegalArgumentException.class, () -> scripts.seed("room", -1));
      assertThrows(
          IllegalArgumentException.class, () -> scripts.seed("room", DedupeScripts.MAX_FLOOR + 1));
      assertThrows(
          IllegalArgumentException.class,
          () -> scripts.renewNodeId(1024, "o", Duration.ofSeconds(1)));
      assertThrows(
          IllegalArgumentException.class,
          () -> scripts.renewNodeId(-1, "o", Duration.ofSeconds(1)));
      assertThrows(
          IllegalArgumentException.class,
          () -> scripts.leaseNodeId("o".repeat(257), Duration.ofSeconds(1)));
      assertThrows(IllegalArgumentException.class, () -> scripts.leaseNodeId("", Duration.ZERO));
      assertThrows(
          IllegalArgumentException.class, () -> scripts.leaseNodeId("o", Duration.ofDays(2)));
      assertEquals(List.of(), scripts.admit("room", List.of(), TTL), "nothing to admit");
      assertEquals(-1, scripts.currentSeq("room"), "no refused call wrote anything");
    }
  }

  @Test
  void fractionalTtlIsRoundedUpAndMaxFloorIsExact() throws Exception {
    try (DedupeScripts scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.none());
        RedisFixture.Raw raw = redis.connect()) {
      assertTrue(scripts.seed("room", DedupeScripts.MAX_FLOOR - 1));
      Admission got =
          scripts
              .admit(
                  "room",
                  List.of(new AdmitItem("k", "aa", Long.MAX_VALUE)),
                  Duration.ofMillis(1500))
              .get(0);
      assertEquals(new Admission(Status.NEW, DedupeScripts.MAX_FLOOR, Long.MAX_VALUE), got);
      List<String> windows = raw.sync().keys(RedisKeys.window("room", 0).replace(":w:0", ":w:*"));
      assertEquals(1, windows.size(), "one window of 2 s: " + windows);
      long pttl = raw.sync().pttl(windows.get(0));
      assertTrue(
          pttl > 0 && pttl <= 4000,
          "got PTTL " + pttl + ", want the end of the next window of 1.5 s rounded up to 2 s");
      assertEquals(
          DedupeScripts.MAX_FLOOR + "|" + Long.MAX_VALUE + "|aa",
          raw.sync().hget(windows.get(0), RedisKeys.entry("room", "k")));
    }
  }

  @Test
  void timedOutAdmitIsRetriedAndAnsweredAsAReplay() throws Exception {
    // CLIENT PAUSE holds every command for 600 ms: attempts time out after 200 ms (the
    // ambiguous case: sent, maybe run), then all run in order once the pause ends.
    RetryPolicy policy =
        RetryPolicy.exponential(20, Duration.ofMillis(50), Duration.ofMillis(100))
            .withRandom(() -> 0.5);
    try (DedupeScripts scripts = DedupeScripts.standalone(redis.uri() + "?timeout=200ms", policy);
        RedisFixture.Raw raw = redis.connect()) {
      scripts.seed("room", 0);
      scripts.admit("room", List.of(new AdmitItem("warm", "aa", 1)), TTL);
      raw.sync().clientPause(600);
      AdmitItem item = new AdmitItem("k", "aa", 42);
      Admission got = scripts.admit("room", List.of(item), TTL).get(0);
      assertEquals(new Admission(Status.DUPLICATE, 2, 42), got, "the first attempt ran");
      assertTrue(got.isReplayOf(item), "answered as a replay of the item's own admission");
      assertEquals(2, scripts.currentSeq("room"), "no second seq for the key");
    }
  }

  @Test
  void busyServerIsRetriedUntilTheLongScriptIsKilled() throws Exception {
    try (RedisFixture slow = RedisFixture.embedded("lua-time-limit 50");
        RedisFixture.Raw blocker = slow.connect();
        RedisFixture.Raw killer = slow.connect()) {
      List<Duration> waits = new ArrayList<>();
      RetryPolicy policy =
          RetryPolicy.exponential(5, Duration.ofMillis(10), Duration.ofMillis(10))
              .withPause(
                  d -> {
                    waits.add(d);
                    killer.sync().scriptKill();
                    awaitIdle(killer);
                  });
      try (DedupeScripts scripts = DedupeScripts.standalone(slow.uri(), policy)) {
        scripts.seed("room", 0);
        blocker.async().eval("while true do end", io.lettuce.core.ScriptOutputType.STATUS);
        awaitBusy(killer);
        Admission got = scripts.admit("room", List.of(new AdmitItem("k", "aa", 1)), TTL).get(0);
        assertEquals(new Admission(Status.NEW, 1, 1), got);
        assertEquals(1, waits.size(), "one BUSY answer, retried after the kill");
      }
    }
  }

  @Test
  void busyServerIsRedisUnavailableWhenRetriesRunOut() throws Exception {
    try (RedisFixture slow = RedisFixture.embedded("lua-time-limit 50");
        RedisFixture.Raw blocker = slow.connect();
        RedisFixture.Raw killer = slow.connect()) {
      RetryPolicy policy =
          RetryPolicy.exponential(3, Duration.ofMillis(10), Duration.ofMillis(10))
              .withPause(d -> {});
      try (DedupeScripts scripts = DedupeScripts.standalone(slow.uri(), policy)) {
        scripts.seed("room", 0);
        blocker.async().eval("while true do end", io.lettuce.core.ScriptOutputType.STATUS);
        awaitBusy(killer);
        RedisUnavailableException e =
            assertThrows(
                RedisUnavailableException.class,
                () -> scripts.admit("room", List.of(new AdmitItem("k", "aa", 1)), TTL));
        assertEquals(RedisUnavailableException.Reason.BUSY, e.reason());
        assertEquals(3, e.attempts());
        killer.sync().scriptKill();
        awaitIdle(killer);
        assertEquals(0, scripts.currentSeq("room"), "the BUSY attempts wrote nothing");
      }
    }
  }

  /** Polls until the server answers BUSY (a script has run past lua-time-limit), at most 10 s. */
  private static void awaitBusy(RedisFixture.Raw raw) throws InterruptedException {
    java.time.Instant deadline = java.time.Instant.now().plusSeconds(10);
    while (java.time.Instant.now().isBefore(deadline)) {
      try {
        raw.sync().ping();
      } catch (io.lettuce.core.RedisBusyException busy) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("server never answered BUSY");
  }

  /** Polls until the server answers PING again after SCRIPT KILL, at most 10 s. */
  private static void awaitIdle(RedisFixture.Raw raw) throws InterruptedException {
    java.time.Instant deadline = java.time.Instant.now().plusSeconds(10);
    while (java.time.Instant.now().isBefore(deadline)) {
      try {
        raw.sync().ping();
        return;
      } catch (io.lettuce.core.RedisBusyException busy) {
        Thread.sleep(10);
      }
    }
    throw new AssertionError("server stayed BUSY after SCRIPT KILL");
  }

  @Test
  void replicaAnswersReadOnlyAfterBoundedRetries() throws Exception {
    try (RedisFixture replica = RedisFixture.embedded("replicaof 127.0.0.1 " + redis.port())) {
      List<Duration> waits = new ArrayList<>();
      RetryPolicy policy =
          RetryPolicy.exponential(3, Duration.ofMillis(10), Duration.ofMillis(10))
              .withPause(waits::add);
      try (DedupeScripts scripts = DedupeScripts.standalone(replica.uri(), policy)) {
        assertThrows(ReadOnlyException.class, () -> scripts.seed("room", 5));
        assertEquals(2, waits.size(), "READONLY is retried: a failover may promote the node");
      }
    }
  }
}
