package dev.danmakuledger.server.kafka;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The lag of the rooms of the shards this instance runs, as the relay loop last saw them: records
 * behind (cursors past the committed position) and since when the room has been behind (from the
 * relay's first sight of a cursor it had not published). Thread-safe.
 */
final class RelayLag {
  private final Map<String, RoomLag> rooms = new HashMap<>();
  private final Map<String, Long> behindSince = new HashMap<>();

  /** Records what the loop saw of {@code room}: its head and its committed position. */
  synchronized void saw(String room, int shard, long head, long position, long nowMillis) {
    long records = Math.max(0, head - position);
    long millis = 0;
    if (records > 0) {
      long since = behindSince.computeIfAbsent(room, r -> nowMillis);
      millis = Math.max(0, nowMillis - since);
    } else {
      behindSince.remove(room);
    }
    rooms.put(room, new RoomLag(room, shard, records, millis));
  }

  /** Forgets the rooms of {@code shard} (this instance no longer runs it). */
  synchronized void forgetShard(int shard) {
    rooms.values().removeIf(l -> l.shard() == shard);
    behindSince.keySet().removeIf(r -> !rooms.containsKey(r));
  }

  /** The rooms of {@code shard} that are behind, most records behind first. */
  synchronized List<RoomLag> behind(int shard) {
    List<RoomLag> out = new ArrayList<>();
    for (RoomLag l : rooms.values()) {
      if (l.shard() == shard && l.records() > 0) {
        out.add(l);
      }
    }
    out.sort(Comparator.comparingLong(RoomLag::records).reversed().thenComparing(RoomLag::room));
    return out;
  }

  /** The rooms, most records behind first, at most {@code limit}. */
  synchronized List<RoomLag> top(int limit) {
    List<RoomLag> all = new ArrayList<>(rooms.values());
    all.sort(Comparator.comparingLong(RoomLag::records).reversed().thenComparing(RoomLag::room));
    return List.copyOf(all.subList(0, Math.min(limit, all.size())));
  }

  synchronized long totalRecords() {
    long n = 0;
    for (RoomLag l : rooms.values()) {
      n += l.records();
    }
    return n;
  }

  synchronized long maxMillis() {
    long m = 0;
    for (RoomLag l : rooms.values()) {
      m = Math.max(m, l.millis());
    }
    return m;
  }
}
