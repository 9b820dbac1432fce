package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.MessageRow;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-process fan-out of newly CONFIRMED messages per room (ARCHITECTURE §2: "broadcast CONFIRMED
 * messages per room, never twice"). Publishers call it after the commit that made the messages
 * durable; subscribers (SSE streams) dedupe by seq, so catch-up from SQL and live delivery can
 * overlap safely.
 */
public final class RoomHub {
  private static final Logger log = LoggerFactory.getLogger(RoomHub.class);

  private final Map<String, List<Consumer<MessageRow>>> listeners = new ConcurrentHashMap<>();

  /** Registers a listener for a room; close the returned handle to stop. */
  public AutoCloseable subscribe(String room, Consumer<MessageRow> listener) {
    listeners.computeIfAbsent(room, r -> new CopyOnWriteArrayList<>()).add(listener);
    return () -> listeners.getOrDefault(room, List.of()).remove(listener);
  }

  /** Delivers committed CONFIRMED messages of one room, in the given order. */
  public void publish(String room, List<MessageRow> confirmed) {
    for (Consumer<MessageRow> l : listeners.getOrDefault(room, List.of())) {
      for (MessageRow m : confirmed) {
        try {
          l.accept(m);
        } catch (RuntimeException e) {
          log.debug("room listener failed: {}", e.toString());
        }
      }
    }
  }

  /** Number of live subscribers of a room. */
  public int subscribers(String room) {
    return listeners.getOrDefault(room, List.of()).size();
  }
}
