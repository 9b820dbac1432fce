package dev.danmakuledger.server.redis;

import dev.danmakuledger.lua.Admission;
import dev.danmakuledger.lua.AdmitItem;
import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.NeedSeedException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * The server's fast duplicate check and per-room sequencer (docs/architecture.md §5, check 2): one
 * Lua admit call per room group of a batch. When Redis has lost a room counter, it is re-seeded
 * from the database's high-water mark before any number is handed out.
 */
public final class RoomSequencer {
  private static final int MAX_SEED_ROUNDS = 3;

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
    for (int round = 0; ; round++) {
      try {
        return scripts.admit(room, items, ttl);
      } catch (NeedSeedException e) {
        if (round >= MAX_SEED_ROUNDS) {
          throw new IllegalStateException(
              "room " + room + ": counter still missing after " + round + " seeds", e);
        }
        scripts.seed(room, sqlHighWater.applyAsLong(room));
      }
    }
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
