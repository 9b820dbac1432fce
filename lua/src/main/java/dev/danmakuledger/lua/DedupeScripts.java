package dev.danmakuledger.lua;

import io.lettuce.core.RedisException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The server's fast duplicate check and per-room sequencer (docs/architecture.md §5, check 2), and
 * the lease of message-id node ids, as calls of the bundled Lua scripts on a standalone Redis or a
 * Redis Cluster. Every call is one atomic script run in one hash slot, retried under the {@link
 * RetryPolicy}. Contracts of the scripts: docs/lua-scripts.md. Thread-safe.
 */
public final class DedupeScripts implements AutoCloseable {
  /** Most items one admit call takes. */
  public static final int MAX_ITEMS = 10_000;

  /**
   * Most items of one script run: a larger admit is split into runs of this many, one after the
   * other in the same round trip, so that no run holds Redis's one thread for long (about 12 ms at
   * 1,000 keys; docs/lua-scripts.md, "Admit").
   */
  public static final int MAX_ITEMS_PER_RUN = 1_000;

  /** Largest seed floor: Lua numbers are doubles, exact up to 2^53. */
  public static final long MAX_FLOOR = (1L << 53) - 1;

  /** Lease group used by the two-argument factories. */
  public static final String DEFAULT_LEASE_GROUP = "default";

  private static final Duration MAX_ADMIT_TTL = Duration.ofSeconds(Integer.MAX_VALUE);
  private static final Duration MAX_LEASE_TTL = Duration.ofDays(1);

  private final RedisOps redis;
  private final ScriptCaller caller;
  private final ScriptRegistry registry;
  private final String leaseOwnersKey;
  private final String leaseExpiryKey;
  private volatile LongSupplier epochSeconds = () -> System.currentTimeMillis() / 1000;

  private DedupeScripts(
      RedisOps redis, RetryPolicy policy, ScriptRegistry registry, String leaseGroup) {
    this.redis = redis;
    this.caller = new ScriptCaller(redis, policy);
    this.registry = registry;
    this.leaseOwnersKey = RedisKeys.leaseOwners(leaseGroup);
    this.leaseExpiryKey = RedisKeys.leaseExpiry(leaseGroup);
  }

  /** Connects to one Redis server, e.g. {@code redis://127.0.0.1:6379/0?timeout=2s}. */
  public static DedupeScripts standalone(String redisUri, RetryPolicy policy) {
    return standalone(redisUri, policy, ScriptRegistry.bundled(), DEFAULT_LEASE_GROUP);
  }

  /**
   * Connects to one Redis server with an explicit script registry (canary control) and lease group
   * (servers sharing node ids must use the same group; 1..256 chars).
   */
  public static DedupeScripts standalone(
      String redisUri, RetryPolicy policy, ScriptRegistry registry, String leaseGroup) {
    return open(() -> RedisOps.standalone(redisUri), policy, registry, leaseGroup);
  }

  /** Connects to a Redis Cluster through any of its nodes, e.g. {@code redis://10.0.0.1:7000}. */
  public static DedupeScripts cluster(List<String> seedUris, RetryPolicy policy) {
    return cluster(seedUris, policy, ScriptRegistry.bundled(), DEFAULT_LEASE_GROUP);
  }

  /** Like {@link #cluster(List, RetryPolicy)} with an explicit registry and lease group. */
  public static DedupeScripts cluster(
      List<String> seedUris, RetryPolicy policy, ScriptRegistry registry, String leaseGroup) {
    return open(() -> RedisOps.cluster(seedUris), policy, registry, leaseGroup);
  }

  private interface Opener {
    RedisOps open();
  }

  private static DedupeScripts open(
      Opener opener, RetryPolicy policy, ScriptRegistry registry, String leaseGroup) {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(registry, "registry");
    RedisKeys.escape("lease group", leaseGroup);
    RedisOps redis;
    try {
      redis = opener.open();
    } catch (RedisException e) {
      throw ScriptCaller.classify(e).toException(1);
    }
    return new DedupeScripts(redis, policy, registry, leaseGroup);
  }

  /**
   * Reads the time that picks an admit's dedupe window from {@code epochSeconds} (Unix seconds)
   * instead of this machine's clock; for tests.
   */
  void clock(LongSupplier epochSeconds) {
    this.epochSeconds = Objects.requireNonNull(epochSeconds, "epochSeconds");
  }

  /** The script versions in use; change them at run time for a canary or a rollback. */
  public ScriptRegistry registry() {
    return registry;
  }

  /**
   * Admits {@code items} of {@code room}: each item gets NEW (next room seq, key remembered for
   * between one and two {@code ttl}: docs/lua-scripts.md, "admit"), DUPLICATE or CONFLICT (with the
   * original seq and message id). Each run of up to {@value #MAX_ITEMS_PER_RUN} items is one atomic
   * step; the runs go in item order. Answers are in item order; a key repeated in {@code items} is
   * a DUPLICATE/CONFLICT of its first occurrence. Safe to call again with the same items after any
   * failure: items a lost or partly done call stored come back as DUPLICATEs for which {@link
   * Admission#isReplayOf} is true — treat those as NEW.
   *
   * @param room 1..256 chars, any content
   * @param items 0..{@value #MAX_ITEMS} items with pairwise different candidate message ids
   * @param ttl how long keys are remembered, 1 s .. 2^31-1 s, rounded up to whole seconds
   * @throws NeedSeedException if the room counter is missing; nothing of the run that found it so,
   *     or of the runs after it, was assigned
   * @throws LuaRedisException if Redis failed (see its subtypes)
   */
  public List<Admission> admit(String room, List<AdmitItem> items, Duration ttl)
      throws NeedSeedException {
    List<Call> runs = Call.runsOf(room, items, wholeSeconds(ttl), epochSeconds.getAsLong());
    List<Admission> out = new ArrayList<>(items.size());
    LuaScript script = registry.select(ScriptRegistry.ADMIT);
    for (Call call : runs) {
      out.addAll(
          AdmitReply.parse(script, caller.call(script, call.keys, call.args), call.items, room));
    }
    return out;
  }

  /**
   * What {@link #admitRooms} answered: every room either admitted or in need of a seed.
   *
   * @param admitted the answers of the rooms admitted, as {@link #admit} gives them
   * @param needSeed rooms whose counter is missing (nothing of theirs was assigned), in call order
   */
  public record RoomAdmissions(Map<String, List<Admission>> admitted, List<String> needSeed) {
    public RoomAdmissions {
      admitted = Collections.unmodifiableMap(new LinkedHashMap<>(admitted));
      needSeed = List.copyOf(needSeed);
    }
  }

  /**
   * Admits several rooms' items, each room as {@link #admit} does (one atomic script run per
   * {@value #MAX_ITEMS_PER_RUN} items), with every run of every room sent before any answer is
   * awaited: one round trip for the whole batch instead of one per run (under a cluster, Lettuce
   * routes each run to its room's node, the runs to different nodes are in flight together). A run
   * that fails is run again alone, with its retries and the full script when Redis lost it; that is
   * safe because re-running an admit returns what the first run stored as replays. A room with a
   * run that found its counter missing is in need of a seed as a whole: admitting it again after
   * the seed returns what its other runs stored as replays.
   *
   * @param byRoom items by room, each as {@link #admit} takes them; rooms keep their order
   * @throws LuaRedisException if Redis failed for a room even after its retries
   */
  public RoomAdmissions admitRooms(Map<String, List<AdmitItem>> byRoom, Duration ttl) {
    long ttlSeconds = wholeSeconds(ttl);
    long now = epochSeconds.getAsLong();
    Map<String, List<Call>> calls = new LinkedHashMap<>();
    byRoom.forEach((room, items) -> calls.put(room, Call.runsOf(room, items, ttlSeconds, now)));
    LuaScript script = registry.select(ScriptRegistry.ADMIT);
    List<Call> all = new ArrayList<>();
    calls.values().forEach(all::addAll);
    List<CompletableFuture<List<Object>>> replies =
        caller.sendAll(
            script,
            all.stream().map(call -> call.keys).toList(),
            all.stream().map(call -> call.args).toList());
    Map<Call, CompletableFuture<List<Object>>> sent = new IdentityHashMap<>();
    for (int i = 0; i < all.size(); i++) {
      sent.put(all.get(i), replies.get(i));
    }
    Map<String, List<Admission>> admitted = new LinkedHashMap<>();
    List<String> needSeed = new ArrayList<>();
    for (Map.Entry<String, List<Call>> e : calls.entrySet()) {
      String room = e.getKey();
      List<Admission> answers = new ArrayList<>(byRoom.get(room).size());
      boolean seeded = true;
      for (Call call : e.getValue()) {
        try {
          List<Object> reply = caller.replyOrCall(sent.get(call), script, call.keys, call.args);
          answers.addAll(AdmitReply.parse(script, reply, call.items, room));
        } catch (NeedSeedException needs) {
          seeded = false;
        }
      }
      if (seeded) {
        admitted.put(room, answers);
      } else {
        needSeed.add(room);
      }
    }
    return new RoomAdmissions(admitted, needSeed);
  }

  /** The keys and arguments of one admit script run, checked. */
  private static final class Call {
    final List<AdmitItem> items;
    final String[] keys;
    final String[] args;

    private Call(List<AdmitItem> items, String[] keys, String[] args) {
      this.items = items;
      this.keys = keys;
      this.args = args;
    }

    /**
     * The runs of an admit of {@code items}: {@value #MAX_ITEMS_PER_RUN} items each, the last one
     * smaller; none for no items. Checks all of them before any is sent.
     */
    static List<Call> runsOf(String room, List<AdmitItem> items, long ttlSeconds, long now) {
      RedisKeys.counter(room); // checks the room name, also when there is nothing to send
      Objects.requireNonNull(items, "items");
      if (items.size() > MAX_ITEMS) {
        throw new IllegalArgumentException(
            "items: got " + items.size() + ", want at most " + MAX_ITEMS);
      }
      checkUniqueCandidates(items);
      List<Call> runs = new ArrayList<>();
      for (int from = 0; from < items.size(); from += MAX_ITEMS_PER_RUN) {
        int to = Math.min(items.size(), from + MAX_ITEMS_PER_RUN);
        runs.add(of(room, items.subList(from, to), ttlSeconds, now));
      }
      return runs;
    }

    /**
     * One run: the room's counter and the hashes of the dedupe windows of {@code ttlSeconds} that
     * {@code now} (Unix seconds) falls in and the two before it; the current one expires when the
     * window after it ends.
     */
    private static Call of(String room, List<AdmitItem> items, long ttlSeconds, long now) {
      long window = now / ttlSeconds;
      String[] keys = {
        RedisKeys.counter(room),
        RedisKeys.window(room, window),
        RedisKeys.window(room, window - 1),
        RedisKeys.window(room, window - 2)
      };
      String[] args = new String[3 * items.size() + 1];
      args[0] = Long.toString((window + 2) * ttlSeconds);
      for (int i = 0; i < items.size(); i++) {
        AdmitItem item = items.get(i);
        args[3 * i + 1] = item.idempotencyKey();
        args[3 * i + 2] = item.contentHash();
        args[3 * i + 3] = Long.toString(item.candidateMessageId());
      }
      return new Call(items, keys, args);
    }

    private static void checkUniqueCandidates(List<AdmitItem> items) {
      long[] candidates = new long[items.size()];
      for (int i = 0; i < items.size(); i++) {
        candidates[i] = Objects.requireNonNull(items.get(i), "item").candidateMessageId();
      }
      Arrays.sort(candidates);
      for (int i = 1; i < candidates.length; i++) {
        if (candidates[i] == candidates[i - 1]) {
          throw new IllegalArgumentException(
              "candidate message ids: got "
                  + candidates[i]
                  + " twice, want unique per call (a DUPLICATE carrying it marks a replay)");
        }
      }
    }
  }

  private static long wholeSeconds(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    long seconds = ttl.getNano() > 0 ? ttl.getSeconds() + 1 : ttl.getSeconds();
    if (ttl.compareTo(Duration.ofSeconds(1)) < 0 || seconds > MAX_ADMIT_TTL.getSeconds()) {
      throw new IllegalArgumentException("ttl: got " + ttl + ", want 1s.." + MAX_ADMIT_TTL);
    }
    return seconds;
  }

  /**
   * Raises {@code room}'s counter to {@code floor} if it is missing or lower; never lowers it.
   *
   * @param floor the highest seq the database holds for the room (tombstones included), 0..{@value
   *     #MAX_FLOOR}
   * @return true if the counter changed
   */
  public boolean seed(String room, long floor) {
    String counter = RedisKeys.counter(room);
    if (floor < 0 || floor > MAX_FLOOR) {
      throw new IllegalArgumentException("floor: got " + floor + ", want 0.." + MAX_FLOOR);
    }
    LuaScript script = registry.select(ScriptRegistry.SEED);
    List<Object> reply =
        caller.call(script, new String[] {counter}, new String[] {Long.toString(floor)});
    return flag(script, reply);
  }

  /**
   * Seeds several rooms as {@link #seed} does, every call sent before any answer is awaited: one
   * round trip for all of them (under a cluster, each call goes to its room's node). A call that
   * failed is run again alone, with its retries; that is safe because a seed is a max.
   *
   * @param floors each room's floor, 0..{@value #MAX_FLOOR}; all are checked before any is sent
   * @throws LuaRedisException if Redis failed for a room even after its retries
   */
  public void seedRooms(Map<String, Long> floors) {
    Map<String, String[]> keys = new LinkedHashMap<>();
    floors.forEach(
        (room, floor) -> {
          if (floor < 0 || floor > MAX_FLOOR) {
            throw new IllegalArgumentException(
                "floor of " + room + ": got " + floor + ", want 0.." + MAX_FLOOR);
          }
          keys.put(room, new String[] {RedisKeys.counter(room)});
        });
    LuaScript script = registry.select(ScriptRegistry.SEED);
    List<String> rooms = new ArrayList<>(keys.keySet());
    List<CompletableFuture<List<Object>>> sent =
        caller.sendAll(
            script,
            new ArrayList<>(keys.values()),
            rooms.stream().map(room -> floorArgs(floors, room)).toList());
    for (int i = 0; i < rooms.size(); i++) {
      String room = rooms.get(i);
      flag(
          script, caller.replyOrCall(sent.get(i), script, keys.get(room), floorArgs(floors, room)));
    }
  }

  private static String[] floorArgs(Map<String, Long> floors, String room) {
    return new String[] {floors.get(room).toString()};
  }

  /** The room's current high-water seq, or -1 if its counter is missing. */
  public long currentSeq(String room) {
    String counter = RedisKeys.counter(room);
    String value = caller.withRetry(() -> redis.get(counter));
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new ScriptException(
          "CORRUPT", "room counter of " + room + ": got '" + value + "', want a decimal", e);
    }
  }

  /**
   * Leases a node id (0..1023) for {@code owner} for {@code ttl}: the owner's live id if it holds
   * one (renewed), else the lowest free id. Renew before {@code ttl} passes, or another owner may
   * take the id.
   *
   * @param owner 1..256 UTF-8 bytes identifying this server instance
   * @param ttl 1 ms .. 1 day
   * @throws ScriptException with code {@code NOFREEID} if all 1024 ids are leased
   */
  public int leaseNodeId(String owner, Duration ttl) {
    LuaScript script = registry.select(ScriptRegistry.LEASE);
    List<Object> reply =
        caller.call(
            script, leaseKeys(), new String[] {"take", checkOwner(owner), leaseMillis(ttl)});
    long id = number(script, reply, 1);
    if (id < 0 || id > 1023) {
      throw new ScriptException("BADREPLY", "lease: got node id " + id + ", want 0..1023", null);
    }
    return (int) id;
  }

  /**
   * Extends {@code owner}'s lease of {@code nodeId} to now + {@code ttl}.
   *
   * @return false if {@code owner} does not hold {@code nodeId} (expired or taken): stop using it
   */
  public boolean renewNodeId(int nodeId, String owner, Duration ttl) {
    return leaseOp("renew", nodeId, owner, ttl);
  }

  /**
   * Gives {@code nodeId} back if {@code owner} holds it.
   *
   * @return false if {@code owner} did not hold it
   */
  public boolean releaseNodeId(int nodeId, String owner) {
    return leaseOp("release", nodeId, owner, Duration.ofMillis(1));
  }

  private boolean leaseOp(String op, int nodeId, String owner, Duration ttl) {
    if (nodeId < 0 || nodeId > 1023) {
      throw new IllegalArgumentException("node id: got " + nodeId + ", want 0..1023");
    }
    LuaScript script = registry.select(ScriptRegistry.LEASE);
    List<Object> reply =
        caller.call(
            script,
            leaseKeys(),
            new String[] {op, checkOwner(owner), leaseMillis(ttl), Integer.toString(nodeId)});
    return flag(script, reply);
  }

  private String[] leaseKeys() {
    return new String[] {leaseOwnersKey, leaseExpiryKey};
  }

  private static String checkOwner(String owner) {
    Objects.requireNonNull(owner, "owner");
    int bytes = owner.getBytes(StandardCharsets.UTF_8).length;
    if (bytes < 1 || bytes > 256) {
      throw new IllegalArgumentException("owner: got " + bytes + " UTF-8 bytes, want 1..256");
    }
    return owner;
  }

  private static String leaseMillis(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.compareTo(Duration.ofMillis(1)) < 0 || ttl.compareTo(MAX_LEASE_TTL) > 0) {
      throw new IllegalArgumentException("lease ttl: got " + ttl + ", want 1ms.." + MAX_LEASE_TTL);
    }
    return Long.toString(ttl.toMillis());
  }

  private static boolean flag(LuaScript script, List<Object> reply) {
    long value = number(script, reply, 1);
    if (value != 0 && value != 1) {
      throw new ScriptException(
          "BADREPLY", "script " + script + ": got flag " + value + ", want 0 or 1", null);
    }
    return value == 1;
  }

  private static long number(LuaScript script, List<Object> reply, int index) {
    if (reply.size() != index + 1 || !(reply.get(index) instanceof Long value)) {
      throw new ScriptException(
          "BADREPLY",
          "script " + script + ": got reply " + reply + ", want {version, number}",
          null);
    }
    return value;
  }

  @Override
  public void close() {
    redis.close();
  }

  /**
   * Decodes the admit reply {@code {version, "OK", statuses, firstSeq, seq, id, seq, id, ...}}: one
   * status character per item, consecutive seqs for the NEW items from {@code firstSeq}, and the
   * original seq and message id of each DUPLICATE/CONFLICT item in item order.
   */
  static final class AdmitReply {
    private AdmitReply() {}

    static List<Admission> parse(
        LuaScript script, List<Object> reply, List<AdmitItem> items, String room)
        throws NeedSeedException {
      int n = items.size();
      if (reply.size() == 2 && "NEED_SEED".equals(reply.get(1))) {
        throw new NeedSeedException(room);
      }
      if (reply.size() < 4
          || !"OK".equals(reply.get(1))
          || !(reply.get(2) instanceof String statuses)
          || statuses.length() != n) {
        throw badReply(script, "want {version, OK, " + n + " statuses, firstSeq, ...}", reply);
      }
      long nextSeq = decimal(reply.get(3));
      int at = 4;
      List<Admission> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        char c = statuses.charAt(i);
        if (c == 'N') {
          out.add(
              new Admission(Admission.Status.NEW, nextSeq++, items.get(i).candidateMessageId()));
          continue;
        }
        Admission.Status status =
            switch (c) {
              case 'D' -> Admission.Status.DUPLICATE;
              case 'C' -> Admission.Status.CONFLICT;
              default -> throw badReply(script, "got status '" + c + "' at item " + i, reply);
            };
        if (at + 1 >= reply.size()) {
          throw badReply(script, "got too few originals for item " + i, reply);
        }
        out.add(new Admission(status, decimal(reply.get(at)), decimal(reply.get(at + 1))));
        at += 2;
      }
      if (at != reply.size()) {
        throw badReply(script, "got " + (reply.size() - at) + " extra elements", reply);
      }
      return out;
    }

    private static ScriptException badReply(LuaScript script, String what, List<Object> reply) {
      String shown = reply.toString();
      if (shown.length() > 200) {
        shown = shown.substring(0, 200) + "...";
      }
      return new ScriptException(
          "BADREPLY", "script " + script + ": " + what + ", reply " + shown, null);
    }

    private static long decimal(Object value) {
      if (value instanceof Long l) {
        return l;
      }
      try {
        return Long.parseLong(String.valueOf(value));
      } catch (NumberFormatException e) {
        throw new ScriptException("BADREPLY", "got '" + value + "', want a decimal", e);
      }
    }
  }
}
