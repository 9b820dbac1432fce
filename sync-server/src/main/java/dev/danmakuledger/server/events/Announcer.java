package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.CursorRange;
import dev.danmakuledger.server.storage.MessageRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Announces committed confirmations off the request path (docs/sync-server.md, "Room streams"): a
 * commit hands over the messages it confirmed with their cursors and returns at once; one thread
 * takes everything waiting, offers each commit's messages to this instance's subscribers, merges
 * the cursors per room (a burst of commits of one room becomes one announcement) and announces the
 * batch's rooms in one {@link RoomBus} call for the other instances, or wakes the room's local
 * subscribers when the announcement fails and they are still behind. A lost announcement costs
 * latency, never a message: subscribers also poll SQL.
 */
final class Announcer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Announcer.class);

  /** What the announcer does on this instance. */
  interface Local {
    /**
     * Offers messages a commit of this instance just confirmed, in cursor order, to the room's
     * subscribers here.
     */
    void committed(String room, List<Confirmed> messages);

    /**
     * Has the room's subscribers here read SQL up to cursor {@code last} unless {@code announced}
     * (then the bus reader does).
     */
    void wake(String room, long last, boolean announced);
  }

  /** Work for the announcer: messages a commit confirmed, or rows whose cursors are to be read. */
  private record Work(Map<String, List<Confirmed>> confirmed, String room, List<MessageRow> rows) {}

  private final ConfirmedFeed feed;
  private final RoomBus bus;
  private final Local local;
  private final LinkedBlockingQueue<Work> queue = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean closed;

  /**
   * @param bus the cross-instance bus, or null (this instance only)
   * @param local this instance's subscribers
   */
  Announcer(ConfirmedFeed feed, RoomBus bus, Local local) {
    this.feed = feed;
    this.bus = bus;
    this.local = local;
    thread = new Thread(this::run, "room-announcer");
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues the messages a commit confirmed, by room, each room's in cursor order. */
  void announce(Map<String, List<Confirmed>> confirmed) {
    if (!confirmed.isEmpty() && !closed) {
      queue.add(new Work(confirmed, null, null));
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
        if (w.confirmed() != null) {
          w.confirmed().forEach((room, messages) -> offer(room, messages, merged));
        } else {
          resolve(w.room(), w.rows()).ifPresent(r -> merged.merge(w.room(), r, CursorRange::span));
        }
      }
      batch.clear();
      send(merged);
    }
  }

  /** Offers a commit's messages of one room here and adds their cursors to the announcement. */
  private void offer(String room, List<Confirmed> messages, Map<String, CursorRange> merged) {
    try {
      local.committed(room, messages);
    } catch (RuntimeException e) {
      log.warn("room {}: cannot offer new confirmations here: {}", room, e.toString());
    }
    merged.merge(room, CursorRange.of(messages), CursorRange::span);
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

  /**
   * Announces every room of one batch in one bus call; wakes local subscribers still behind if it
   * fails.
   */
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
    for (Map.Entry<String, CursorRange> entry : merged.entrySet()) {
      String room = entry.getKey();
      try {
        local.wake(room, entry.getValue().last(), announced);
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
