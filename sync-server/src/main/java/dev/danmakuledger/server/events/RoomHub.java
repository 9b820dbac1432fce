package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.MessageRow;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-process fan-out of newly CONFIRMED messages per room (docs/architecture.md §2: "broadcast
 * CONFIRMED messages per room, never twice"). Publishers call {@link #publish} after the commit
 * that confirmed messages (a batch or an approval); the hub then reads the room's confirmations
 * after the last cursor it delivered from SQL and hands each to every subscriber once, in cursor
 * order. Delivering what SQL holds, not what the publisher passed, means nothing uncommitted is
 * broadcast and every delivery carries its confirmation cursor (the stream's event id).
 */
public final class RoomHub {
  private static final Logger log = LoggerFactory.getLogger(RoomHub.class);
  private static final int PAGE = 500;

  private final ConfirmedFeed feed;
  private final Map<String, Channel> channels = new ConcurrentHashMap<>();

  public RoomHub(ConfirmedFeed feed) {
    this.feed = feed;
  }

  /**
   * Registers a listener for a room's confirmations after now; close the returned handle to stop.
   *
   * @throws dev.danmakuledger.server.storage.StorageUnavailableException when the room's cursor
   *     cannot be read
   */
  public AutoCloseable subscribe(String room, Consumer<Confirmed> listener) {
    Channel ch = channels.computeIfAbsent(room, Channel::new);
    ch.lock.lock();
    try {
      if (ch.listeners.isEmpty()) {
        ch.last = feed.head(room);
      }
      ch.listeners.add(listener);
    } finally {
      ch.lock.unlock();
    }
    return () -> ch.listeners.remove(listener);
  }

  /**
   * Tells subscribers of {@code room} that messages became CONFIRMED in a committed transaction;
   * {@code confirmed} only says whether any did. Never throws: a failed read is retried at the next
   * publish, and subscribers that reconnect catch up from SQL.
   */
  public void publish(String room, List<MessageRow> confirmed) {
    Channel ch = channels.get(room);
    if (confirmed.isEmpty() || ch == null || ch.listeners.isEmpty()) {
      return;
    }
    ch.dirty.set(true);
    while (ch.dirty.get() && ch.lock.tryLock()) {
      try {
        ch.dirty.set(false);
        ch.drain();
      } catch (RuntimeException e) {
        log.warn("room {}: cannot read new confirmations: {}", room, e.getMessage());
      } finally {
        ch.lock.unlock();
      }
    }
  }

  /** Number of live subscribers of a room. */
  public int subscribers(String room) {
    Channel ch = channels.get(room);
    return ch == null ? 0 : ch.listeners.size();
  }

  /** The subscribers of one room and the last cursor delivered to them. */
  private final class Channel {
    final String room;
    final List<Consumer<Confirmed>> listeners = new CopyOnWriteArrayList<>();
    final ReentrantLock lock = new ReentrantLock();
    final AtomicBoolean dirty = new AtomicBoolean();
    long last;

    Channel(String room) {
      this.room = room;
    }

    /** Delivers every confirmation after {@link #last}; holds {@link #lock}. */
    void drain() {
      List<Confirmed> page;
      do {
        page = feed.after(room, last, 0, PAGE);
        for (Confirmed c : page) {
          for (Consumer<Confirmed> l : listeners) {
            try {
              l.accept(c);
            } catch (RuntimeException e) {
              log.debug("room listener failed: {}", e.toString());
            }
          }
          last = c.cursor();
        }
      } while (page.size() == PAGE);
    }
  }
}
