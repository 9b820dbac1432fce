package dev.danmakuledger.server.redis;

import dev.danmakuledger.lua.Admission;
import dev.danmakuledger.lua.AdmitItem;
import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.NeedSeedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The server's fast duplicate check and per-room sequencer (docs/architecture.md §5, check 2): one
 * Lua admit run per bucket of rooms (docs/lua-scripts.md, "Key layout"), the runs of a tick
 * pipelined. Redis is a fast path that may be wiped, stale or behind, so a room counter Redis lost
 * is reported to the caller, which seeds it from SQL's high-water mark of the room ({@link
 * #seedRooms}, never lowering it) and admits again; fresh numbers for records whose number SQL
 * shows taken are handed out above the high-water mark the caller read. The sequencer itself reads
 * nothing but Redis.
 */
public final class RoomSequencer {
  /**
   * How long a renumbering entry lives: it only exists to take a number from the counter in the
   * same atomic step that admits it, never to remember a key.
   */
  static final Duration RENUMBER_TTL = Duration.ofSeconds(1);

  /** Prefix of the throwaway keys that take fresh numbers; no idempotency key has a '~'. */
  static final String RENUMBER_PREFIX = "~renumber:";

  private final DedupeScripts scripts;
  private final Duration ttl;

  /**
   * @param scripts the Lua runner
   * @param ttl how long keys are remembered in Redis
   */
  public RoomSequencer(DedupeScripts scripts, Duration ttl) {
    this.scripts = Objects.requireNonNull(scripts, "scripts");
    this.ttl = Objects.requireNonNull(ttl, "ttl");
  }

  /**
   * Admits the items of every room, each room atomically, all runs in flight together (one Redis
   * round trip).
   *
   * @return the answers by room, and the rooms whose counter Redis lost (not admitted: seed them
   *     and admit them again)
   * @throws dev.danmakuledger.lua.RedisUnavailableException when Redis cannot be reached
   */
  public DedupeScripts.RoomAdmissions admitRooms(Map<String, List<AdmitItem>> byRoom) {
    return scripts.admitRooms(byRoom, ttl);
  }

  /**
   * Raises the counter of each room to at least its SQL high-water mark (never lowers one), all in
   * one Redis round trip.
   *
   * @param sqlHighWaters each room's highest seq in SQL, tombstones included
   */
  public void seedRooms(Map<String, Long> sqlHighWaters) {
    scripts.seedRooms(sqlHighWaters);
  }

  /**
   * Hands out fresh numbers of a room for records whose number turned out taken in SQL: first
   * raises the counter to SQL's high-water mark (a counter at or below it is behind; the seed never
   * lowers a counter), then takes one number per id from the counter.
   *
   * @param sqlHighWater the highest seq SQL holds for the room, read after the collision
   * @param candidateIds one unused message id per number wanted (makes each throwaway entry unique)
   * @return the numbers, in the order of the ids
   * @throws NeedSeedException when the counter vanished between the seed and the admit
   */
  public List<Long> freshNumbers(String room, long sqlHighWater, List<Long> candidateIds)
      throws NeedSeedException {
    scripts.seed(room, sqlHighWater);
    List<AdmitItem> items = new ArrayList<>(candidateIds.size());
    for (long id : candidateIds) {
      items.add(new AdmitItem(RENUMBER_PREFIX + id, "0", id));
    }
    List<Long> seqs = new ArrayList<>(items.size());
    List<Admission> admitted = scripts.admit(room, items, RENUMBER_TTL);
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
