package dev.danmakuledger.server.events;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts this instance's room streams in all, per room and per client address against {@link
 * StreamLimits} (docs/operations.md, "Room stream limits"), and refuses one beyond a limit before
 * anything is opened. Memory is bounded by the admitted streams: a room or address with none left
 * is forgotten.
 */
final class StreamAdmission {
  /** What a refused client is told to wait, in seconds. */
  static final int RETRY_AFTER_SECONDS = 5;

  private final StreamLimits limits;
  private final Map<String, Integer> rooms = new HashMap<>();
  private final Map<String, Integer> addresses = new HashMap<>();
  private final Map<StreamRefusal, AtomicLong> refused = new EnumMap<>(StreamRefusal.class);
  private int total;

  StreamAdmission(StreamLimits limits) {
    this.limits = limits;
    for (StreamRefusal r : StreamRefusal.values()) {
      refused.put(r, new AtomicLong());
    }
  }

  /**
   * Admits one stream of {@code room} from {@code address}.
   *
   * @throws StreamRefusedException beyond a limit (counted)
   */
  synchronized StreamTicket admit(String room, String address) {
    if (total >= limits.perInstance()) {
      throw refuse(StreamRefusal.INSTANCE, limits.perInstance());
    }
    if (rooms.getOrDefault(room, 0) >= limits.perRoom()) {
      throw refuse(StreamRefusal.ROOM, limits.perRoom());
    }
    if (addresses.getOrDefault(address, 0) >= limits.perAddress()) {
      throw refuse(StreamRefusal.ADDRESS, limits.perAddress());
    }
    total++;
    rooms.merge(room, 1, Integer::sum);
    addresses.merge(address, 1, Integer::sum);
    return new StreamTicket(this, room, address);
  }

  private StreamRefusedException refuse(StreamRefusal why, int limit) {
    refused.get(why).incrementAndGet();
    return new StreamRefusedException(why, limit, RETRY_AFTER_SECONDS);
  }

  synchronized void release(String room, String address) {
    total--;
    rooms.computeIfPresent(room, (k, n) -> n > 1 ? n - 1 : null);
    addresses.computeIfPresent(address, (k, n) -> n > 1 ? n - 1 : null);
  }

  /** Streams admitted and not yet released. */
  synchronized int admitted() {
    return total;
  }

  /** Client addresses holding at least one stream. */
  synchronized int addresses() {
    return addresses.size();
  }

  /** Streams refused so far for {@code why}. */
  long refused(StreamRefusal why) {
    return refused.get(why).get();
  }
}
