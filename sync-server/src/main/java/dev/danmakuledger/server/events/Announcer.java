package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.CursorRange;
import dev.danmakuledger.server.storage.MessageRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Announces committed confirmations off the request path (docs/sync-server.md, "Room streams"): a
 * commit hands over its cursor ranges and returns at once; one thread takes everything waiting,
 * merges it per room (a burst of commits of one room becomes one announcement) and announces the
 * batch's rooms in one {@link RoomBus} call, or wakes the room's local subscribers when there is no
 * bus or the announcement fails. A lost announcement costs latency, never a message: subscribers
 * also poll SQL.
 */
final class Announcer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Announcer.class);

  /** Work for the announcer: cursors a commit gave out, or rows whose cursors are to be read. */
  private record Work(Map<String, CursorRange> ranges, String room, List<MessageRow> rows) {}

  private final ConfirmedFeed feed;
  private final RoomBus bus;
  private final BiConsumer<String, Boolean> wake;
  private final LinkedBlockingQueue<Work> queue = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean closed;

  /**
   * @param bus the cross-instance bus, or null (this instance only)
   * @param wake called with a room and whether it was announced on the bus: the hub wakes its local
   *     subscribers of the room when it was not
   */
  Announcer(ConfirmedFeed feed, RoomBus bus, BiConsumer<String, Boolean> wake) {
    this.feed = feed;
    this.bus = bus;
    this.wake = wake;
    thread = new Thread(this::run, "room-announcer");
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues the cursor ranges a commit gave out. */
  void announce(Map<String, CursorRange> ranges) {
    if (!ranges.isEmpty() && !closed) {
      queue.add(new Work(ranges, null, null));
    }
  }

  /** Queues confirmed rows whose cursors the announcer reads from SQL first. */
  void announce(String room, List<MessageRow> rows) {
    if (!rows.isEmpty() && !closed) {
      queue.add(new Work(null, room, List.copyOf(rows)));
    }
  }

  private void run() {
    List<Work> batch = new ArrayList<>();
    while (!closed) {
      try {
        batch.add(queue.take());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      queue.drainTo(batch);
      Map<String, CursorRange> merged = new TreeMap<>();
      for (Work w : batch) {
        if (w.ranges() != null) {
          w.ranges().forEach((room, r) -> merged.merge(room, r, CursorRange::span));
        } else {
          resolve(w.room(), w.rows()).ifPresent(r -> merged.merge(w.room(), r, CursorRange::span));
        }
      }
      batch.clear();
      send(merged);
    }
  }

  /** The cursors of {@code rows}; empty when SQL cannot say (the poll then finds them). */
  private Optional<CursorRange> resolve(String room, List<MessageRow> rows) {
    List<Long> seqs = new ArrayList<>(rows.size());
    for (MessageRow m : rows) {
      seqs.add(m.seq());
    }
    try {
      return feed.cursorRange(room, seqs).map(r -> new CursorRange(r[0], r[1]));
    } catch (RuntimeException e) {
      log.warn("room {}: cannot read the cursors of new confirmations: {}", room, e.toString());
      return Optional.empty();
    }
  }

  /** Announces every room of one batch in one bus call; wakes local subscribers if it fails. */
  private void send(Map<String, CursorRange> merged) {
    if (merged.isEmpty()) {
      return;
    }
    boolean announced = false;
    if (bus != null) {
      Map<String, RoomBus.Announcement> ranges = new TreeMap<>();
      merged.forEach((room, r) -> ranges.put(room, new RoomBus.Announcement(r.first(), r.last())));
      try {
        bus.announce(ranges);
        announced = true;
      } catch (RuntimeException e) {
        log.warn("cannot announce new confirmations of {} rooms: {}", ranges.size(), e.toString());
      }
    }
    for (String room : merged.keySet()) {
      try {
        wake.accept(room, announced);
      } catch (RuntimeException e) {
        log.warn("room {}: cannot wake local subscribers: {}", room, e.toString());
      }
    }
  }

  /** Stops the thread; what is still queued is dropped (subscribers' polls find it). */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
