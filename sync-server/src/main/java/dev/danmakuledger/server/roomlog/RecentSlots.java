package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.server.storage.LogSlot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The slots this instance committed and the room logs have not integrated yet, by room and seq
 * (docs/room-log.md, "Integration"): the integrator extends from them instead of reading each new
 * message back from SQL. Only slots of committed transactions are offered, and committed slots do
 * not change (a review decision is not part of the entry), so a slot held here is the slot SQL
 * holds. What this instance did not commit (another instance's batches, sealed gaps) or dropped (a
 * room over {@code maxPerRoom}) is read from SQL.
 *
 * <p>Memory is bounded by {@code max} slots; a room with none held is not kept. Thread-safe:
 * request threads offer, the integrator takes and forgets.
 */
final class RecentSlots {
  private final int max;
  private final AtomicInteger held = new AtomicInteger();
  private final Map<String, TreeMap<Long, LogSlot>> rooms = new ConcurrentHashMap<>();

  /** Holds at most {@code max} slots over all rooms. */
  RecentSlots(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max: got " + max + ", want >= 1");
    }
    this.max = max;
  }

  /** Holds the committed {@code slots} of {@code room}; those beyond the limit are dropped. */
  void offer(String room, Collection<LogSlot> slots) {
    rooms.compute(
        room,
        (r, held) -> {
          TreeMap<Long, LogSlot> inRoom = held == null ? new TreeMap<>() : held;
          synchronized (inRoom) {
            for (LogSlot s : slots) {
              if (this.held.get() >= max) {
                break;
              }
              if (inRoom.put(s.seq(), s) == null) {
                this.held.incrementAndGet();
              }
            }
            return inRoom.isEmpty() ? null : inRoom;
          }
        });
  }

  /**
   * The run of held slots of {@code room} directly above {@code size}: seq {@code size + 1}, {@code
   * size + 2}, … up to the first one not held, at most {@code max}.
   */
  List<LogSlot> runAbove(String room, long size, int max) {
    List<LogSlot> run = new ArrayList<>();
    TreeMap<Long, LogSlot> inRoom = rooms.get(room);
    if (inRoom == null) {
      return run;
    }
    synchronized (inRoom) {
      long next = size + 1;
      for (LogSlot s : inRoom.tailMap(next, true).values()) {
        if (s.seq() != next || run.size() >= max) {
          break;
        }
        run.add(s);
        next++;
      }
    }
    return run;
  }

  /** Forgets the slots of {@code room} at or below {@code size} (integrated). */
  void forgetUpTo(String room, long size) {
    rooms.computeIfPresent(
        room,
        (r, inRoom) -> {
          synchronized (inRoom) {
            SortedMap<Long, LogSlot> done = inRoom.headMap(size, true);
            held.addAndGet(-done.size());
            done.clear();
            return inRoom.isEmpty() ? null : inRoom;
          }
        });
  }

  /** How many rooms have slots held: a room whose slots are all integrated is forgotten. */
  int rooms() {
    return rooms.size();
  }

  /** How many slots are held, over all rooms. */
  int size() {
    return held.get();
  }
}
