package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.MessageRow;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscribers of one room on this instance and the last cursor delivered to them. Reads of SQL
 * after that cursor happen under one lock, so each confirmation is offered once, in cursor order.
 * With a {@link RoomBus}, a follower thread waits for the room's announcements (at most {@code
 * poll}) and reads SQL when one announces a cursor above the last, or when the wait ends empty: the
 * poll fallback.
 */
final class RoomChannel {
  private static final Logger log = LoggerFactory.getLogger(RoomChannel.class);
  static final int PAGE = 500;

  private final String room;
  private final ConfirmedFeed feed;
  private final Function<MessageRow, String> render;
  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicBoolean dirty = new AtomicBoolean();
  private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();
  private final AtomicInteger members = new AtomicInteger();
  private final Object pause = new Object();
  private volatile long last;
  private volatile boolean stopped;
  private volatile RoomBus.Reader reader;
  private Thread follower;

  RoomChannel(String room, ConfirmedFeed feed, Function<MessageRow, String> render, long head) {
    this.room = room;
    this.feed = feed;
    this.render = render;
    this.last = head;
  }

  String room() {
    return room;
  }

  /** The last cursor offered to subscribers. */
  long last() {
    return last;
  }

  int members() {
    return members.get();
  }

  void addMember() {
    members.incrementAndGet();
  }

  int removeMember() {
    return members.decrementAndGet();
  }

  void remove(Subscriber s) {
    subscribers.remove(s);
  }

  /**
   * Adds a subscriber that was sent everything up to {@code sent}: what was delivered between its
   * catch-up and now is read from SQL and queued first.
   */
  void attach(Subscriber s, long sent, long afterSeq) {
    lock.lock();
    try {
      long cursor = sent;
      while (cursor < last) {
        List<Confirmed> page = feed.after(room, cursor, afterSeq, PAGE);
        for (Confirmed c : page) {
          s.offer(RoomHub.live(c, render));
          cursor = c.cursor();
        }
        if (page.size() < PAGE) {
          break;
        }
      }
      subscribers.add(s);
    } finally {
      lock.unlock();
    }
  }

  /** Reads SQL now unless another thread is reading; that one then reads again. Never throws. */
  void wake() {
    dirty.set(true);
    while (dirty.get() && lock.tryLock()) {
      try {
        dirty.set(false);
        drain();
      } catch (RuntimeException e) {
        log.warn("room {}: cannot read new confirmations: {}", room, e.getMessage());
      } finally {
        lock.unlock();
      }
    }
  }

  private void drainNow() {
    lock.lock();
    try {
      drain();
    } catch (RuntimeException e) {
      log.warn("room {}: cannot read new confirmations: {}", room, e.getMessage());
    } finally {
      lock.unlock();
    }
  }

  /** Offers every confirmation after {@link #last}; holds {@link #lock}. */
  private void drain() {
    List<Confirmed> page;
    do {
      page = feed.after(room, last, 0, PAGE);
      for (Confirmed c : page) {
        LiveMessage m = RoomHub.live(c, render);
        for (Subscriber s : subscribers) {
          if (!s.offer(m)) {
            subscribers.remove(s);
          }
        }
        last = c.cursor();
      }
    } while (page.size() == PAGE);
  }

  /** Starts the follower thread; it calls {@code retire} when no member is left. */
  void follow(RoomBus bus, Duration poll, Predicate<RoomChannel> retire) {
    follower = new Thread(() -> run(bus, poll, retire), "room-follower");
    follower.setDaemon(true);
    follower.start();
  }

  private void run(RoomBus bus, Duration poll, Predicate<RoomChannel> retire) {
    while (!stopped) {
      if (members.get() == 0 && retire.test(this)) {
        break;
      }
      try {
        if (reader == null) {
          reader = bus.reader(room);
          drainNow();
        }
        Optional<Long> to = reader.next(poll);
        if (to.isEmpty() || to.get() > last) {
          drainNow();
        }
      } catch (RuntimeException e) {
        if (stopped) {
          break;
        }
        log.debug("room {}: Redis stream unavailable, reading SQL: {}", room, e.toString());
        closeReader();
        drainNow();
        pause(poll);
      }
    }
    closeReader();
  }

  private void pause(Duration poll) {
    synchronized (pause) {
      try {
        if (!stopped) {
          pause.wait(poll.toMillis());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopped = true;
      }
    }
  }

  private void closeReader() {
    RoomBus.Reader r = reader;
    reader = null;
    if (r != null) {
      try {
        r.close();
      } catch (RuntimeException e) {
        log.debug("room {}: closing stream reader failed: {}", room, e.toString());
      }
    }
  }

  /** Stops the follower (its blocking read is ended by closing its connection). */
  void stop() {
    stopped = true;
    synchronized (pause) {
      pause.notifyAll();
    }
    closeReader();
    if (follower != null) {
      follower.interrupt();
    }
  }
}
