package dev.danmakuledger.server.redis;

import dev.danmakuledger.lua.Admission;
import dev.danmakuledger.lua.AdmitItem;
import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.NeedSeedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * The server's fast duplicate check and per-room sequencer (docs/architecture.md §5, check 2): one
 * Lua admit call per room group of a batch, a batch's calls pipelined. Redis is a fast path that
 * may be wiped, stale or behind, so the counter is re-seeded from SQL's high-water mark of the room
 * (never lowered) both when Redis lost it and when SQL shows it behind, before fresh numbers are
 * handed out again.
 */
public final class RoomSequencer {
  private static final int MAX_SEED_ROUNDS = 3;

  /**
   * How long a renumbering entry lives: it only exists to take a number from the counter in the
   * same atomic step that admits it, never to remember a key.
   */
  static final Duration RENUMBER_TTL = Duration.ofSeconds(1);

  /** Prefix of the throwaway keys that take fresh numbers; no idempotency key has a '~'. */
  static final String RENUMBER_PREFIX = "~renumber:";

  private final DedupeScripts scripts;
  private final ToLongFunction<String> sqlHighWater;
  private final Duration ttl;

  /**
   * @param scripts the Lua runner
   * @param sqlHighWater the highest seq the database holds for a room (tombstones included)
   * @param ttl how long keys are remembered in Redis
   */
  public RoomSequencer(DedupeScripts scripts, ToLongFunction<String> sqlHighWater, Duration ttl) {
    this.scripts = Objects.requireNonNull(scripts, "scripts");
    this.sqlHighWater = Objects.requireNonNull(sqlHighWater, "sqlHighWater");
    this.ttl = Objects.requireNonNull(ttl, "ttl");
  }

  /**
   * Admits the items of one room atomically, seeding the counter from SQL when Redis lost it.
   *
   * @throws dev.danmakuledger.lua.RedisUnavailableException when Redis cannot be reached
   */
  public List<Admission> admit(String room, List<AdmitItem> items) {
    return admit(room, items, ttl);
  }

  /**
   * Admits the items of every room of a batch, each room atomically, all rooms' calls in flight
   * together (one Redis round trip); rooms whose counter Redis lost are seeded from SQL and
   * admitted again.
   *
   * @return the answers by room, in the order of {@code byRoom}
   * @throws dev.danmakuledger.lua.RedisUnavailableException when Redis cannot be reached
   */
  public Map<String, List<Admission>> admitRooms(Map<String, List<AdmitItem>> byRoom) {
    DedupeScripts.RoomAdmissions first = scripts.admitRooms(byRoom, ttl);
    if (first.needSeed().isEmpty()) {
      return first.admitted();
    }
    Map<String, List<Admission>> out = new LinkedHashMap<>();
    for (String room : byRoom.keySet()) {
      List<Admission> admitted = first.admitted().get(room);
      if (admitted == null) {
        scripts.seed(room, sqlHighWater.applyAsLong(room));
        admitted = admit(room, byRoom.get(room), ttl);
      }
      out.put(room, admitted);
    }
    return out;
  }

  private List<Admission> admit(String room, List<AdmitItem> items, Duration entryTtl) {
    for (int round = 0; ; round++) {
      try {
        return scripts.admit(room, items, entryTtl);
      } catch (NeedSeedException e) {
        if (round >= MAX_SEED_ROUNDS) {
          throw new IllegalStateException(
              "room " + room + ": counter still missing after " + round + " seeds", e);
        }
        scripts.seed(room, sqlHighWater.applyAsLong(room));
      }
    }
  }

  /**
   * Hands out fresh numbers of a room for records whose number turned out taken in SQL: first
   * raises the counter to SQL's high-water mark (a counter at or below it is behind; the seed never
   * lowers a counter), then takes one number per id from the counter.
   *
   * @param candidateIds one unused message id per number wanted (makes each throwaway entry unique)
   * @return the numbers, in the order of the ids
   */
  public List<Long> freshNumbers(String room, List<Long> candidateIds) {
    scripts.seed(room, sqlHighWater.applyAsLong(room));
    List<AdmitItem> items = new ArrayList<>(candidateIds.size());
    for (long id : candidateIds) {
      items.add(new AdmitItem(RENUMBER_PREFIX + id, "0", id));
    }
    List<Long> seqs = new ArrayList<>(items.size());
    List<Admission> admitted = admit(room, items, RENUMBER_TTL);
    for (int i = 0; i < items.size(); i++) {
      Admission a = admitted.get(i);
      if (a.status() != Admission.Status.NEW && !a.isReplayOf(items.get(i))) {
        throw new IllegalStateException(
            "room " + room + ": renumbering entry " + items.get(i).idempotencyKey() + " got " + a);
      }
      seqs.add(a.seq());
    }
    return seqs;
  }

  /** True when Redis answers a read. */
  public boolean isReachable() {
    try {
      scripts.currentSeq("readyz-probe");
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }
}
