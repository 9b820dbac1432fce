package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows every room this instance has subscribers for with a fixed set of threads
 * (docs/architecture.md §7): one thread per {@link RoomBus} reader hands each announced room whose
 * cursor is above its channel's last to the fan-out pool, and one SQL poll every {@code poll} reads
 * the heads of all followed rooms, {@value #HEADS_PER_READ} per query, and does the same for every
 * room that moved without an announcement (a lost, trimmed or wiped stream, Redis down). Threads
 * and connections do not grow with rooms or subscribers; an announcement of a room nobody here
 * follows costs a map lookup.
 */
final class RoomFollowers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RoomFollowers.class);
  static final int HEADS_PER_READ = 500;

  private final RoomBus bus;
  private final ConfirmedFeed feed;
  private final Duration poll;
  private final Function<String, RoomChannel> channel;
  private final Supplier<Collection<RoomChannel>> channels;
  private final Executor fanout;
  private final List<ReaderThread> readers = new ArrayList<>();
  private final ScheduledExecutorService poller;
  private volatile boolean closed;

  RoomFollowers(
      RoomBus bus,
      ConfirmedFeed feed,
      Duration poll,
      Function<String, RoomChannel> channel,
      Supplier<Collection<RoomChannel>> channels,
      Executor fanout) {
    this.bus = bus;
    this.feed = feed;
    this.poll = poll;
    this.channel = channel;
    this.channels = channels;
    this.fanout = fanout;
    for (int i = 0; i < bus.readers(); i++) {
      ReaderThread r = new ReaderThread(i);
      readers.add(r);
      r.start();
    }
    poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "room-poll");
              t.setDaemon(true);
              return t;
            });
    long ms = poll.toMillis();
    poller.scheduleWithFixedDelay(this::pollSql, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** Schedules a read of each followed room whose SQL head is above its last offered cursor. */
  void pollSql() {
    List<RoomChannel> all = new ArrayList<>(channels.get());
    for (int from = 0; from < all.size() && !closed; from += HEADS_PER_READ) {
      List<RoomChannel> part = all.subList(from, Math.min(all.size(), from + HEADS_PER_READ));
      List<String> rooms = new ArrayList<>(part.size());
      for (RoomChannel ch : part) {
        rooms.add(ch.room());
      }
      Map<String, Long> heads;
      try {
        heads = feed.heads(rooms);
      } catch (RuntimeException e) {
        log.warn("cannot poll the heads of {} followed rooms: {}", rooms.size(), e.toString());
        return;
      }
      for (RoomChannel ch : part) {
        if (heads.getOrDefault(ch.room(), 0L) > ch.last()) {
          ch.schedule(fanout);
        }
      }
    }
  }

  /** Hands each announced room this instance follows, and that moved, to the fan-out pool. */
  void announced(Map<String, Long> highest) {
    for (Map.Entry<String, Long> e : highest.entrySet()) {
      RoomChannel ch = channel.apply(e.getKey());
      if (ch != null && e.getValue() > ch.last()) {
        ch.schedule(fanout);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    poller.shutdownNow();
    for (ReaderThread r : readers) {
      r.stopReading();
    }
  }

  /** One bus reader's loop; a failed reader is reopened after a pause of {@code poll}. */
  private final class ReaderThread extends Thread {
    private final int index;
    private volatile RoomBus.Reader reader;

    ReaderThread(int index) {
      super("room-bus-reader-" + index);
      this.index = index;
      setDaemon(true);
    }

    @Override
    public void run() {
      while (!closed) {
        try {
          if (reader == null) {
            reader = bus.reader(index);
          }
          announced(reader.next(poll));
        } catch (RuntimeException e) {
          if (closed) {
            break;
          }
          log.debug("announcement reader {} unavailable, SQL poll covers: {}", index, e.toString());
          closeReader();
          try {
            Thread.sleep(poll.toMillis());
          } catch (InterruptedException ie) {
            break;
          }
        }
      }
      closeReader();
    }

    private void closeReader() {
      RoomBus.Reader r = reader;
      reader = null;
      if (r != null) {
        try {
          r.close();
        } catch (RuntimeException e) {
          log.debug("closing announcement reader {} failed: {}", index, e.toString());
        }
      }
    }

    /** Ends the blocking read by closing its connection. */
    void stopReading() {
      closeReader();
      interrupt();
    }
  }
}
