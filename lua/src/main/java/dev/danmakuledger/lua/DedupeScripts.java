package dev.danmakuledger.lua;

import io.lettuce.core.RedisException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
    RoomAdmissions answers = admitRooms(Map.of(room, items), ttl);
    if (!answers.needSeed().isEmpty()) {
      throw new NeedSeedException(room);
    }
    return answers.admitted().get(room);
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
   * Admits several rooms' items, each room as {@link #admit} does, in one script run per bucket of
   * rooms (docs/lua-scripts.md, "Key layout") and {@value #MAX_ITEMS_PER_RUN} items, every run sent
   * before any answer is awaited: one round trip for the whole call, and Redis's work grows with
   * the items and the buckets, not with the rooms (under a cluster, Lettuce routes each run to its
   * bucket's node, the runs to different nodes are in flight together). A room of more than {@value
   * #MAX_ITEMS_PER_RUN} items takes several runs, in item order. A run that fails is run again
   * alone, with its retries and the full script when Redis lost it; that is safe because re-running
   * an admit returns what the first run stored as replays. A room with a run that found its counter
   * missing is in need of a seed as a whole: admitting it again after the seed returns what its
   * other runs stored as replays.
   *
   * @param byRoom items by room, each as {@link #admit} takes them; rooms keep their order
   * @throws LuaRedisException if Redis failed for a room even after its retries
   */
  public RoomAdmissions admitRooms(Map<String, List<AdmitItem>> byRoom, Duration ttl) {
    List<Run> runs = Run.plan(byRoom, wholeSeconds(ttl), epochSeconds.getAsLong());
    LuaScript script = registry.select(ScriptRegistry.ADMIT);
    List<CompletableFuture<List<Object>>> replies =
        caller.sendAll(
            script,
            runs.stream().map(run -> run.keys).toList(),
            runs.stream().map(run -> run.args).toList());
    Map<String, List<Admission>> answers = new LinkedHashMap<>();
    Set<String> unseeded = new HashSet<>();
    for (int i = 0; i < runs.size(); i++) {
      Run run = runs.get(i);
      List<Object> reply = caller.replyOrCall(replies.get(i), script, run.keys, run.args);
      AdmitReply.parse(script, reply, run.parts, answers, unseeded);
    }
    Map<String, List<Admission>> admitted = new LinkedHashMap<>();
    List<String> needSeed = new ArrayList<>();
    for (String room : byRoom.keySet()) {
      if (unseeded.contains(room)) {
        needSeed.add(room);
      } else {
        admitted.put(room, answers.getOrDefault(room, List.of()));
      }
    }
    return new RoomAdmissions(admitted, needSeed);
  }

  /** Some consecutive items of one room, within one run. */
  record Part(String room, List<AdmitItem> items) {}

  /** The keys and arguments of one admit script run: parts of rooms of one bucket, checked. */
  private static final class Run {
    final List<Part> parts = new ArrayList<>();
    int items;
    String[] keys;
    String[] args;

    /**
     * The runs of an admit of {@code byRoom}: each room's items in parts of at most {@value
     * #MAX_ITEMS_PER_RUN}, the parts of one bucket's rooms packed into runs of at most that many
     * items, a room at most once a run and its parts in item order. Checks every room before any
     * run is sent; a room without items has no run.
     */
    static List<Run> plan(Map<String, List<AdmitItem>> byRoom, long ttlSeconds, long now) {
      Map<Integer, List<Run>> byBucket = new LinkedHashMap<>();
      byRoom.forEach(
          (room, items) -> {
            int bucket = RedisKeys.bucket(room); // checks the room name
            Objects.requireNonNull(items, "items");
            if (items.size() > MAX_ITEMS) {
              throw new IllegalArgumentException(
                  "items of " + room + ": got " + items.size() + ", want at most " + MAX_ITEMS);
            }
            checkUniqueCandidates(items);
            List<Run> runs = byBucket.computeIfAbsent(bucket, b -> new ArrayList<>());
            int firstFree = 0;
            for (int from = 0; from < items.size(); from += MAX_ITEMS_PER_RUN) {
              List<AdmitItem> part =
                  items.subList(from, Math.min(items.size(), from + MAX_ITEMS_PER_RUN));
              int at = firstFree;
              while (at < runs.size() && runs.get(at).items + part.size() > MAX_ITEMS_PER_RUN) {
                at++;
              }
              if (at == runs.size()) {
                runs.add(new Run());
              }
              runs.get(at).parts.add(new Part(room, part));
              runs.get(at).items += part.size();
              firstFree = at + 1;
            }
          });
      long window = now / ttlSeconds;
      List<Run> all = new ArrayList<>();
      for (List<Run> runs : byBucket.values()) {
        for (Run run : runs) {
          run.seal(window, ttlSeconds);
          all.add(run);
        }
      }
      return all;
    }

    /**
     * Its keys: the bucket's counters and the hashes of the dedupe windows of {@code ttlSeconds}
     * that {@code window} names and the two before it; the current one expires when the window
     * after it ends. Then its arguments.
     */
    private void seal(long window, long ttlSeconds) {
      String room = parts.get(0).room();
      keys =
          new String[] {
            RedisKeys.counters(room),
            RedisKeys.window(room, window),
            RedisKeys.window(room, window - 1),
            RedisKeys.window(room, window - 2)
          };
      args = new String[2 + 2 * parts.size() + 3 * items];
      args[0] = Long.toString((window + 2) * ttlSeconds);
      args[1] = Integer.toString(parts.size());
      int at = 2;
      for (Part part : parts) {
        args[at++] = RedisKeys.field(part.room());
        args[at++] = Integer.toString(part.items().size());
        for (AdmitItem item : part.items()) {
          args[at++] = item.idempotencyKey();
          args[at++] = item.contentHash();
          args[at++] = Long.toString(item.candidateMessageId());
        }
      }
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
                  + " twice, want unique per room (a DUPLICATE carrying it marks a replay)");
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
    return seedRooms(Map.of(room, floor)) == 1;
  }

  /**
   * Seeds several rooms as {@link #seed} does, one script run per bucket of rooms and {@value
   * #MAX_ITEMS_PER_RUN} rooms, every run sent before any answer is awaited: one round trip for all
   * of them (under a cluster, each run goes to its bucket's node). A run that failed is run again
   * alone, with its retries; that is safe because a seed is a max.
   *
   * @param floors each room's floor, 0..{@value #MAX_FLOOR}; all are checked before any is sent
   * @return how many counters changed
   * @throws LuaRedisException if Redis failed for a room even after its retries
   */
  public int seedRooms(Map<String, Long> floors) {
    Map<Integer, List<List<String>>> byBucket = new LinkedHashMap<>();
    Map<Integer, String> keyOf = new HashMap<>();
    floors.forEach(
        (room, floor) -> {
          if (floor == null || floor < 0 || floor > MAX_FLOOR) {
            throw new IllegalArgumentException(
                "floor of " + room + ": got " + floor + ", want 0.." + MAX_FLOOR);
          }
          int bucket = RedisKeys.bucket(room);
          keyOf.putIfAbsent(bucket, RedisKeys.counters(room));
          List<List<String>> runs = byBucket.computeIfAbsent(bucket, b -> new ArrayList<>());
          if (runs.isEmpty() || runs.get(runs.size() - 1).size() == 2 * MAX_ITEMS_PER_RUN) {
            runs.add(new ArrayList<>());
          }
          runs.get(runs.size() - 1).add(RedisKeys.field(room));
          runs.get(runs.size() - 1).add(floor.toString());
        });
    List<String[]> keys = new ArrayList<>();
    List<String[]> args = new ArrayList<>();
    byBucket.forEach(
        (bucket, runs) -> {
          for (List<String> run : runs) {
            keys.add(new String[] {keyOf.get(bucket)});
            args.add(run.toArray(new String[0]));
          }
        });
    LuaScript script = registry.select(ScriptRegistry.SEED);
    List<CompletableFuture<List<Object>>> sent = caller.sendAll(script, keys, args);
    int changed = 0;
    for (int i = 0; i < keys.size(); i++) {
      long count =
          number(script, caller.replyOrCall(sent.get(i), script, keys.get(i), args.get(i)), 1);
      if (count < 0 || count > args.get(i).length / 2) {
        throw new ScriptException(
            "BADREPLY", "seed: got " + count + " changed of " + args.get(i).length / 2, null);
      }
      changed += (int) count;
    }
    return changed;
  }

  /** The room's current high-water seq, or -1 if its counter is missing. */
  public long currentSeq(String room) {
    String counters = RedisKeys.counters(room);
    String field = RedisKeys.field(room);
    String value = caller.withRetry(() -> redis.hget(counters, field));
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
   * Decodes the admit reply {@code {version, "OK", then per room: statuses, firstSeq, originals}}:
   * one status character per item, consecutive seqs for the NEW items from {@code firstSeq}, and
   * the original seq and message id of each DUPLICATE/CONFLICT item in item order; {@code
   * NEED_SEED} for a room whose counter is missing.
   */
  static final class AdmitReply {
    private static final String NEED_SEED = "NEED_SEED";

    private AdmitReply() {}

    /**
     * Adds each part's answers to its room's in {@code answers}, or the room to {@code unseeded}.
     */
    static void parse(
        LuaScript script,
        List<Object> reply,
        List<Part> parts,
        Map<String, List<Admission>> answers,
        Set<String> unseeded) {
      if (reply.size() < 2 + 2 * parts.size() || !"OK".equals(reply.get(1))) {
        throw badReply(script, "want {version, OK, " + parts.size() + " rooms' answers}", reply);
      }
      int at = 2;
      for (Part part : parts) {
        List<AdmitItem> items = part.items();
        int n = items.size();
        if (at + 1 >= reply.size() || !(reply.get(at) instanceof String statuses)) {
          throw badReply(script, "want the statuses of room " + part.room() + " at " + at, reply);
        }
        long nextSeq = decimal(reply.get(at + 1));
        at += 2;
        if (NEED_SEED.equals(statuses)) {
          unseeded.add(part.room());
          continue;
        }
        if (statuses.length() != n) {
          throw badReply(script, "want " + n + " statuses for room " + part.room(), reply);
        }
        List<Admission> out = answers.computeIfAbsent(part.room(), r -> new ArrayList<>());
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
      }
      if (at != reply.size()) {
        throw badReply(script, "got " + (reply.size() - at) + " extra elements", reply);
      }
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
