package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.Admission.Status;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The one contract suite of the scripts and their runner, run unchanged against embedded Redis, a
 * real Redis server and a Redis Cluster; each backend subclasses it. Every test uses its own rooms
 * and lease group, so backends may be shared with other users.
 */
abstract class DedupeScriptsContract {
  static final Duration TTL = Duration.ofMinutes(10);
  static final String HASH = "a1b2c3";
  static final String OTHER_HASH = "ffff0000";

  /** Strings that would break a script built by string concatenation, or a SQL statement. */
  static final List<String> HOSTILE =
      List.of(
          "it's \"quoted\"",
          "line1\nline2\r\n",
          "'; DROP TABLE messages; --",
          "redis.call('FLUSHALL')",
          "]] redis.call('FLUSHALL') --[[",
          "end) return {1} --",
          "{r:other}:seq",
          "a}b{c}",
          "%41%7B",
          "弾幕💬 ünïcödé",
          "\u0000nul\u0000");

  private final AtomicLong ids = new AtomicLong(1_000_000L);
  private final List<DedupeScripts> opened = new ArrayList<>();
  DedupeScripts scripts;
  String leaseGroup;

  /** Opens a runner on the backend with the given registry and lease group. */
  abstract DedupeScripts open(RetryPolicy policy, ScriptRegistry registry, String leaseGroup);

  /** A name no other test or user of the backend uses. */
  abstract String unique(String base);

  /** Raw commands on the backend, for setup and checks behind the runner's back. */
  abstract RedisClusterCommands<String, String> raw();

  /** The time the runner of each test reads (Unix seconds), so that it stays in one window. */
  final long now = System.currentTimeMillis() / 1000;

  @BeforeEach
  void openScripts() {
    leaseGroup = unique("lease");
    scripts = track(open(RetryPolicy.defaults(), ScriptRegistry.bundled(), leaseGroup));
  }

  @AfterEach
  void closeScripts() {
    opened.forEach(DedupeScripts::close);
    opened.clear();
  }

  DedupeScripts track(DedupeScripts s) {
    s.clock(() -> now);
    opened.add(s);
    return s;
  }

  /** The hash that holds the entries {@code room} admits now under {@link #TTL}. */
  String window(String room) {
    return RedisKeys.window(room, now / TTL.toSeconds());
  }

  /** The field of {@code room}'s entry of {@code key} in its bucket's window hashes. */
  static String entry(String room, String key) {
    return RedisKeys.entry(room, key);
  }

  String seededRoom(String base) {
    String room = unique(base);
    assertTrue(scripts.seed(room, 0));
    return room;
  }

  AdmitItem item(String key) {
    return new AdmitItem(key, HASH, ids.incrementAndGet());
  }

  @Test
  void newKeysGetConsecutiveSeqsAndTheirCandidateIds() throws Exception {
    String room = seededRoom("room");
    List<AdmitItem> items = List.of(item("k1"), item("k2"), item("k3"));
    List<Admission> got = scripts.admit(room, items, TTL);
    for (int i = 0; i < 3; i++) {
      assertEquals(new Admission(Status.NEW, i + 1, items.get(i).candidateMessageId()), got.get(i));
    }
    assertEquals(3, scripts.currentSeq(room));
  }

  @Test
  void missingCounterAnswersNeedSeedAndWritesNothing() throws Exception {
    String room = unique("unseeded");
    NeedSeedException e =
        assertThrows(NeedSeedException.class, () -> scripts.admit(room, List.of(item("k")), TTL));
    assertEquals(room, e.room());
    assertEquals(-1, scripts.currentSeq(room));
    assertFalse(raw().hexists(window(room), entry(room, "k")));
    assertTrue(scripts.seed(room, 41));
    assertEquals(
        new Admission(Status.NEW, 42, ids.get() + 1),
        scripts.admit(room, List.of(item("k")), TTL).get(0));
  }

  @Test
  void duplicateReturnsTheOriginalSeqAndMessageId() throws Exception {
    String room = seededRoom("room");
    AdmitItem first = item("key");
    scripts.admit(room, List.of(item("a"), first), TTL);
    AdmitItem again = item("key");
    List<Admission> got = scripts.admit(room, List.of(again, item("b")), TTL);
    assertEquals(new Admission(Status.DUPLICATE, 2, first.candidateMessageId()), got.get(0));
    assertFalse(got.get(0).isReplayOf(again));
    assertEquals(new Admission(Status.NEW, 3, ids.get()), got.get(1));
  }

  @Test
  void sameKeyWithOtherContentIsAConflictCarryingTheOriginal() throws Exception {
    String room = seededRoom("room");
    AdmitItem first = item("key");
    scripts.admit(room, List.of(first), TTL);
    AdmitItem changed = new AdmitItem("key", OTHER_HASH, ids.incrementAndGet());
    assertEquals(
        new Admission(Status.CONFLICT, 1, first.candidateMessageId()),
        scripts.admit(room, List.of(changed), TTL).get(0));
    assertEquals(1, scripts.currentSeq(room));
  }

  @Test
  void keyRepeatedWithinOneCallIsADuplicateOfItsFirstOccurrence() throws Exception {
    String room = seededRoom("room");
    AdmitItem first = item("twice");
    AdmitItem second = item("twice");
    AdmitItem changed = new AdmitItem("twice", OTHER_HASH, ids.incrementAndGet());
    List<Admission> got = scripts.admit(room, List.of(first, second, changed), TTL);
    assertEquals(new Admission(Status.NEW, 1, first.candidateMessageId()), got.get(0));
    assertEquals(new Admission(Status.DUPLICATE, 1, first.candidateMessageId()), got.get(1));
    assertEquals(new Admission(Status.CONFLICT, 1, first.candidateMessageId()), got.get(2));
    assertEquals(1, scripts.currentSeq(room));
  }

  @Test
  void rerunningAnAdmitAfterALostReplyReturnsTheSameSeqsAsReplays() throws Exception {
    String room = seededRoom("room");
    List<AdmitItem> items = List.of(item("x"), item("y"), item("z"));
    List<Admission> first = scripts.admit(room, items, TTL);
    List<Admission> rerun = scripts.admit(room, items, TTL);
    for (int i = 0; i < items.size(); i++) {
      assertEquals(Status.DUPLICATE, rerun.get(i).status());
      assertEquals(first.get(i).seq(), rerun.get(i).seq());
      assertTrue(rerun.get(i).isReplayOf(items.get(i)), "item " + i + " is a replay");
    }
    assertEquals(3, scripts.currentSeq(room));
  }

  @Test
  void seedRaisesButNeverLowersTheCounter() throws Exception {
    String room = unique("room");
    assertTrue(scripts.seed(room, 10));
    assertFalse(scripts.seed(room, 10));
    assertFalse(scripts.seed(room, 3));
    assertEquals(10, scripts.currentSeq(room));
    assertTrue(scripts.seed(room, 20));
    assertEquals(21, scripts.admit(room, List.of(item("k")), TTL).get(0).seq());
    assertFalse(scripts.seed(room, 20));
    assertEquals(21, scripts.currentSeq(room));
  }

  @Test
  void seedingSeveralRoomsAtOnceRaisesEachAsOneSeedWould() throws Exception {
    String missing = unique("missing");
    String lower = unique("lower");
    String higher = unique("higher");
    scripts.seed(lower, 5);
    scripts.seed(higher, 50);
    Map<String, Long> floors = new LinkedHashMap<>();
    floors.put(missing, 7L);
    floors.put(lower, 9L);
    floors.put(higher, 20L);

    scripts.seedRooms(floors);

    assertEquals(7, scripts.currentSeq(missing));
    assertEquals(9, scripts.currentSeq(lower));
    assertEquals(50, scripts.currentSeq(higher), "never lowered");
  }

  @Test
  void seedingSeveralRoomsChecksEveryFloorBeforeSendingAny() {
    String first = unique("first");
    Map<String, Long> floors = new LinkedHashMap<>();
    floors.put(first, 3L);
    floors.put(unique("over"), DedupeScripts.MAX_FLOOR + 1);
    assertThrows(IllegalArgumentException.class, () -> scripts.seedRooms(floors));
    Map<String, Long> negative = Map.of(unique("negative"), -1L);
    assertThrows(IllegalArgumentException.class, () -> scripts.seedRooms(negative));
    assertEquals(-1, scripts.currentSeq(first), "nothing sent");
    scripts.seedRooms(Map.of(first, DedupeScripts.MAX_FLOOR));
    assertEquals(DedupeScripts.MAX_FLOOR, scripts.currentSeq(first), "the bound itself is taken");
  }

  @Test
  void newKeysLiveInTheirWindowUntilTheWindowAfterItEnds() throws Exception {
    String room = seededRoom("room");
    AdmitItem k = item("k");
    scripts.admit(room, List.of(k), Duration.ofSeconds(90));
    long window = now / 90;
    String hash = RedisKeys.window(room, window);
    assertEquals("1|" + k.candidateMessageId() + "|" + HASH, raw().hget(hash, entry(room, "k")));
    long expiresIn = (window + 2) * 90 - System.currentTimeMillis() / 1000;
    long ttl = raw().ttl(hash);
    assertTrue(
        ttl >= expiresIn - 5 && ttl <= expiresIn && ttl > 90 - 5 && ttl <= 180,
        "got TTL " + ttl + ", want the end of the window after this one, in " + expiresIn + " s");
    assertEquals(-1L, raw().ttl(RedisKeys.counters(room)), "the counters never expire");
  }

  @Test
  void anEntryIsSeenFromTheNextWindowAndForgottenInTheOneAfter() throws Exception {
    String room = seededRoom("room");
    AdmitItem k = item("k");
    long start = (now / 90) * 90;
    scripts.clock(() -> start);
    assertEquals(
        Status.NEW, scripts.admit(room, List.of(k), Duration.ofSeconds(90)).get(0).status());
    scripts.clock(() -> start + 179);
    assertEquals(
        new Admission(Status.DUPLICATE, 1, k.candidateMessageId()),
        scripts.admit(room, List.of(item("k")), Duration.ofSeconds(90)).get(0),
        "the next window still reads the one before");
    scripts.clock(() -> start + 180);
    assertEquals(
        Status.NEW,
        scripts.admit(room, List.of(item("k")), Duration.ofSeconds(90)).get(0).status(),
        "two windows on, the entry is forgotten (the database's UNIQUE key is the authority)");
    assertEquals(
        0L, raw().exists(RedisKeys.window(room, start / 90)), "the window two back is unlinked");
  }

  @Test
  void hostileRoomsAndKeysAreStoredAndReturnedAsData() throws Exception {
    String sentinelRoom = seededRoom("sentinel");
    scripts.admit(sentinelRoom, List.of(item("alive")), TTL);
    Set<String> counters = new HashSet<>();
    for (String hostile : HOSTILE) {
      String room = unique("r") + hostile;
      counters.add(RedisKeys.counters(room) + " " + RedisKeys.field(room));
      assertTrue(scripts.seed(room, 0), hostile);
      AdmitItem a = item(hostile);
      AdmitItem b = item(hostile + "2");
      List<Admission> got = scripts.admit(room, List.of(a, b, item(hostile)), TTL);
      assertEquals(new Admission(Status.NEW, 1, a.candidateMessageId()), got.get(0), hostile);
      assertEquals(new Admission(Status.NEW, 2, b.candidateMessageId()), got.get(1), hostile);
      assertEquals(new Admission(Status.DUPLICATE, 1, a.candidateMessageId()), got.get(2));
      String stored = raw().hget(window(room), entry(room, hostile));
      assertEquals("1|" + a.candidateMessageId() + "|" + HASH, stored, hostile);
      assertEquals(2, scripts.currentSeq(room));
    }
    assertEquals(HOSTILE.size(), counters.size(), "every hostile room has its own counter");
    assertEquals(1, scripts.currentSeq(sentinelRoom), "no script flushed or touched other rooms");
    assertEquals(
        Status.DUPLICATE, scripts.admit(sentinelRoom, List.of(item("alive")), TTL).get(0).status());
  }

  @Test
  void roomsThatLookAlikeStayApart() throws Exception {
    String base = unique("look");
    List<String> rooms = List.of(base, base + "}", base + "}:k:x", base + "%7D", "{" + base);
    for (String room : rooms) {
      scripts.seed(room, 0);
    }
    for (String room : rooms) {
      assertEquals(Status.NEW, scripts.admit(room, List.of(item("x")), TTL).get(0).status(), room);
      assertEquals(1, scripts.currentSeq(room), room);
    }
  }

  @Test
  void corruptEntryFailsTheWholeCallAndWritesNothing() throws Exception {
    String room = seededRoom("room");
    raw().hset(window(room), entry(room, "bad"), "not a seq");
    ScriptException e =
        assertThrows(
            ScriptException.class,
            () -> scripts.admit(room, List.of(item("good"), item("bad")), TTL));
    assertEquals("CORRUPT", e.code());
    assertEquals(0, scripts.currentSeq(room));
    assertFalse(raw().hexists(window(room), entry(room, "good")));
  }

  @Test
  void corruptCounterIsAScriptError() {
    String room = unique("room");
    raw().hset(RedisKeys.counters(room), RedisKeys.field(room), "twelve");
    assertEquals(
        "CORRUPT",
        assertThrows(ScriptException.class, () -> scripts.admit(room, List.of(item("k")), TTL))
            .code());
    assertEquals(
        "CORRUPT", assertThrows(ScriptException.class, () -> scripts.seed(room, 5)).code());
    assertEquals(
        "CORRUPT", assertThrows(ScriptException.class, () -> scripts.currentSeq(room)).code());
  }

  @Test
  void flushedScriptCacheIsReloadedTransparently() throws Exception {
    String room = seededRoom("room");
    scripts.admit(room, List.of(item("before")), TTL);
    raw().scriptFlush();
    assertEquals(2, scripts.admit(room, List.of(item("after")), TTL).get(0).seq());
    assertTrue(scripts.seed(room, 5));
  }

  @Test
  void admittingRoomsTogetherAnswersAsAdmittingEachAlone() throws Exception {
    String a = seededRoom("pipe-a");
    String b = seededRoom("pipe-b");
    String unseeded = unique("pipe-unseeded");
    AdmitItem earlier = item("seen");
    scripts.admit(b, List.of(item("b0"), earlier), TTL);
    Map<String, List<AdmitItem>> byRoom = new LinkedHashMap<>();
    byRoom.put(a, List.of(item("a1"), item("a2")));
    byRoom.put(unseeded, List.of(item("u1")));
    byRoom.put(b, List.of(item("seen"), item("b3")));
    byRoom.put(unique("pipe-empty"), List.of());

    DedupeScripts.RoomAdmissions got = scripts.admitRooms(byRoom, TTL);

    assertEquals(List.of(unseeded), got.needSeed());
    assertEquals(-1, scripts.currentSeq(unseeded));
    assertFalse(raw().hexists(window(unseeded), entry(unseeded, "u1")));
    List<AdmitItem> inA = byRoom.get(a);
    assertEquals(
        List.of(
            new Admission(Status.NEW, 1, inA.get(0).candidateMessageId()),
            new Admission(Status.NEW, 2, inA.get(1).candidateMessageId())),
        got.admitted().get(a));
    assertEquals(
        List.of(
            new Admission(Status.DUPLICATE, 2, earlier.candidateMessageId()),
            new Admission(Status.NEW, 3, byRoom.get(b).get(1).candidateMessageId())),
        got.admitted().get(b));
    assertEquals(3, got.admitted().size());
    DedupeScripts.RoomAdmissions again = scripts.admitRooms(Map.of(a, inA), TTL);
    for (int i = 0; i < inA.size(); i++) {
      assertTrue(again.admitted().get(a).get(i).isReplayOf(inA.get(i)), "item " + i);
    }
  }

  @Test
  void roomsAdmittedTogetherAfterAScriptFlushAreStillAdmitted() throws Exception {
    String a = seededRoom("flush-a");
    String b = seededRoom("flush-b");
    raw().scriptFlush();
    DedupeScripts.RoomAdmissions got =
        scripts.admitRooms(Map.of(a, List.of(item("x")), b, List.of(item("y"), item("z"))), TTL);
    assertEquals(List.of(), got.needSeed());
    assertEquals(1, got.admitted().get(a).get(0).seq());
    assertEquals(2, got.admitted().get(b).get(1).seq());
    assertEquals(2, scripts.currentSeq(b));
  }

  @Test
  void batchOfOneRunIsOneAtomicCall() throws Exception {
    String room = seededRoom("room");
    List<AdmitItem> items = new ArrayList<>();
    for (int i = 0; i < DedupeScripts.MAX_ITEMS_PER_RUN; i++) {
      items.add(item("bulk-" + i));
    }
    List<Admission> got = scripts.admit(room, items, TTL);
    for (int i = 0; i < items.size(); i++) {
      assertEquals(i + 1, got.get(i).seq());
    }
  }

  /**
   * 2,500 items, three script runs: item 1,500 repeats item 10 (same content), item 2,100 repeats
   * item 20 with other content, item 1,800 is a key stored before the call.
   */
  private List<AdmitItem> itemsOverSeveralRuns(AdmitItem storedBefore) {
    List<AdmitItem> items = new ArrayList<>();
    for (int i = 0; i < 2_500; i++) {
      if (i == 1_500) {
        items.add(item("multi-10"));
      } else if (i == 2_100) {
        items.add(new AdmitItem("multi-20", OTHER_HASH, ids.incrementAndGet()));
      } else if (i == 1_800) {
        items.add(new AdmitItem(storedBefore.idempotencyKey(), HASH, ids.incrementAndGet()));
      } else {
        items.add(item("multi-" + i));
      }
    }
    return items;
  }

  /** What one admit of {@link #itemsOverSeveralRuns} must answer after one stored key (seq 1). */
  private static void assertAnsweredInItemOrder(
      List<AdmitItem> items, AdmitItem storedBefore, List<Admission> got) {
    assertEquals(items.size(), got.size());
    long seq = 2;
    for (int i = 0; i < items.size(); i++) {
      Admission a = got.get(i);
      if (i == 1_500) {
        assertEquals(new Admission(Status.DUPLICATE, 12, items.get(10).candidateMessageId()), a);
      } else if (i == 2_100) {
        assertEquals(new Admission(Status.CONFLICT, 22, items.get(20).candidateMessageId()), a);
      } else if (i == 1_800) {
        assertEquals(new Admission(Status.DUPLICATE, 1, storedBefore.candidateMessageId()), a);
      } else {
        assertEquals(
            new Admission(Status.NEW, seq++, items.get(i).candidateMessageId()), a, "#" + i);
      }
    }
  }

  @Test
  void admitLargerThanOneRunAnswersAsOneCallInItemOrder() throws Exception {
    assertTrue(DedupeScripts.MAX_ITEMS_PER_RUN < 2_500);
    String room = seededRoom("runs");
    AdmitItem storedBefore = item("stored-before");
    scripts.admit(room, List.of(storedBefore), TTL);
    List<AdmitItem> items = itemsOverSeveralRuns(storedBefore);

    List<Admission> got = scripts.admit(room, items, TTL);

    assertAnsweredInItemOrder(items, storedBefore, got);
    assertEquals(1 + 2_497, scripts.currentSeq(room));
    List<Admission> rerun = scripts.admit(room, items, TTL);
    for (int i = 0; i < items.size(); i++) {
      assertEquals(got.get(i).seq(), rerun.get(i).seq(), "#" + i);
      if (got.get(i).status() == Status.NEW) {
        assertTrue(rerun.get(i).isReplayOf(items.get(i)), "#" + i + " is a replay");
      }
    }
    assertEquals(1 + 2_497, scripts.currentSeq(room));
  }

  @Test
  void roomsAdmittedTogetherSplitLargeRoomsIntoRunsToo() throws Exception {
    String big = seededRoom("runs-big");
    String small = seededRoom("runs-small");
    String unseeded = unique("runs-unseeded");
    AdmitItem storedBefore = item("stored-before");
    scripts.admit(big, List.of(storedBefore), TTL);
    List<AdmitItem> items = itemsOverSeveralRuns(storedBefore);
    List<AdmitItem> unseededItems = new ArrayList<>();
    for (int i = 0; i < 1_200; i++) {
      unseededItems.add(item("u-" + i));
    }
    Map<String, List<AdmitItem>> byRoom = new LinkedHashMap<>();
    byRoom.put(big, items);
    byRoom.put(unseeded, unseededItems);
    byRoom.put(small, List.of(item("s1")));

    DedupeScripts.RoomAdmissions got = scripts.admitRooms(byRoom, TTL);

    assertAnsweredInItemOrder(items, storedBefore, got.admitted().get(big));
    assertEquals(1, got.admitted().get(small).get(0).seq());
    assertEquals(List.of(unseeded), got.needSeed());
    assertFalse(raw().hexists(window(unseeded), entry(unseeded, "u-0")));
  }

  @Test
  void canaryServesItsShareAndRollsBackWithoutRestart() throws Exception {
    double[] draws = {0.1, 0.9};
    int[] next = {0};
    ScriptRegistry registry = ScriptRegistry.bundled(() -> draws[next[0]++ % 2]);
    DedupeScripts s = track(open(RetryPolicy.none(), registry, unique("lease")));
    String room = seededRoom("room");
    LuaScript stable = registry.stable(ScriptRegistry.ADMIT);
    String broken =
        withVersion(stable, stable.version() + 1)
            .replace(
                "local VERSION = " + (stable.version() + 1),
                "local VERSION = "
                    + (stable.version() + 1)
                    + "\nif true then return redis.error_reply(\"CANARY broken\") end");
    registry.setCanary(LuaScript.of(ScriptRegistry.ADMIT, broken), 0.5);

    ScriptException e =
        assertThrows(ScriptException.class, () -> s.admit(room, List.of(item("a")), TTL));
    assertEquals("CANARY", e.code(), "draw 0.1 < share 0.5 runs the canary");
    assertEquals(Status.NEW, s.admit(room, List.of(item("b")), TTL).get(0).status());

    registry.rollback(ScriptRegistry.ADMIT);
    assertEquals(Status.NEW, s.admit(room, List.of(item("c")), TTL).get(0).status());
    assertEquals(Status.NEW, s.admit(room, List.of(item("d")), TTL).get(0).status());

    String good = withVersion(stable, stable.version() + 1);
    registry.setCanary(LuaScript.of(ScriptRegistry.ADMIT, good), 1.0);
    assertEquals(4, s.admit(room, List.of(item("e")), TTL).get(0).seq());
    registry.promote(ScriptRegistry.ADMIT);
    assertEquals(stable.version() + 1, registry.stable(ScriptRegistry.ADMIT).version());
    assertEquals(5, s.admit(room, List.of(item("f")), TTL).get(0).seq());
  }

  @Test
  void scriptThatRunsAnotherVersionThanSelectedIsRefused() throws Exception {
    ScriptRegistry registry = ScriptRegistry.bundled(() -> 0.0);
    DedupeScripts s = track(open(RetryPolicy.none(), registry, unique("lease")));
    String room = seededRoom("room");
    LuaScript stable = registry.stable(ScriptRegistry.ADMIT);
    String lying =
        withVersion(stable, stable.version() + 2)
            .replace(
                "local VERSION = " + (stable.version() + 2),
                "local VERSION = " + (stable.version() + 2) + "\nVERSION = " + stable.version());
    registry.setCanary(LuaScript.of(ScriptRegistry.ADMIT, lying), 1.0);
    ScriptException e =
        assertThrows(ScriptException.class, () -> s.admit(room, List.of(item("a")), TTL));
    assertEquals("BADVERSION", e.code());
  }

  /** {@code script}'s source declaring {@code version} in its header and its reply. */
  private static String withVersion(LuaScript script, int version) {
    String source =
        script
            .source()
            .replace("-- version: " + script.version(), "-- version: " + version)
            .replace("local VERSION = " + script.version(), "local VERSION = " + version);
    assertNotEquals(script.source(), source);
    return source;
  }

  @Test
  void twoOwnersNeverShareANodeId() {
    int a = scripts.leaseNodeId("server-a", Duration.ofMinutes(1));
    int b = scripts.leaseNodeId("server-b", Duration.ofMinutes(1));
    assertNotEquals(a, b);
    assertEquals(a, scripts.leaseNodeId("server-a", Duration.ofMinutes(1)), "re-lease keeps id");
    assertTrue(scripts.renewNodeId(a, "server-a", Duration.ofMinutes(1)));
    assertFalse(scripts.renewNodeId(a, "server-b", Duration.ofMinutes(1)), "non-owner renew");
    assertFalse(scripts.releaseNodeId(a, "server-b"), "non-owner release");
    assertTrue(scripts.releaseNodeId(a, "server-a"));
    assertFalse(scripts.renewNodeId(a, "server-a", Duration.ofMinutes(1)), "released");
    assertEquals(a, scripts.leaseNodeId("server-c", Duration.ofMinutes(1)), "freed id reused");
  }

  @Test
  void hostileOwnersAreData() {
    Set<Integer> leased = new HashSet<>();
    for (String owner : HOSTILE) {
      assertTrue(leased.add(scripts.leaseNodeId(owner, Duration.ofMinutes(1))), owner);
    }
    for (String owner : HOSTILE) {
      int id = scripts.leaseNodeId(owner, Duration.ofMinutes(1));
      assertTrue(scripts.renewNodeId(id, owner, Duration.ofMinutes(1)), owner);
    }
  }

  @Test
  void expiredLeaseIsFreeForAnotherOwner() {
    int a = scripts.leaseNodeId("short-lived", Duration.ofMillis(50));
    Instant deadline = Instant.now().plusSeconds(10);
    int b = scripts.leaseNodeId("successor", Duration.ofMinutes(1));
    while (b != a && Instant.now().isBefore(deadline)) {
      assertTrue(scripts.releaseNodeId(b, "successor"));
      b = scripts.leaseNodeId("successor", Duration.ofMinutes(1));
    }
    assertEquals(a, b, "the expired id went to the successor");
    assertFalse(scripts.renewNodeId(a, "short-lived", Duration.ofMinutes(1)));
  }
}
