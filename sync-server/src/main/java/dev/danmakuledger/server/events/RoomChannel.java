package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.MessageRow;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscribers of one room on this instance and the last cursor delivered to them. Offers of
 * this instance's commits and reads of SQL after that cursor happen under one lock, so each
 * confirmation is offered once, in cursor order. The channel owns no thread: the hub's announcer
 * offers what this instance committed, and the bus readers and SQL poll {@link #schedule} a read on
 * the hub's fan-out pool when a cursor above the last is announced or committed elsewhere.
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
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile long last;

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

  /**
   * Offers messages a commit of this instance just confirmed, in cursor order, as they are: those
   * at or below {@link #last} were offered already, and the rest only while each cursor follows the
   * last one offered. A gap (another instance's commit, or this instance's announced out of order)
   * or a read of SQL under way leaves them to a read of SQL on {@code pool}. Never throws.
   */
  void committed(List<Confirmed> messages, Executor pool) {
    boolean complete = false;
    if (lock.tryLock()) {
      try {
        complete = offerInOrder(messages);
      } catch (RuntimeException e) {
        log.warn("room {}: cannot offer new confirmations: {}", room, e.getMessage());
      } finally {
        lock.unlock();
      }
    }
    if (!complete) {
      schedule(pool);
    }
  }

  /**
   * Offers each of {@code messages} whose cursor follows {@link #last}; holds {@link #lock}.
   *
   * @return whether every one of them has been offered now or before
   */
  private boolean offerInOrder(List<Confirmed> messages) {
    for (Confirmed c : messages) {
      if (c.cursor() <= last) {
        continue;
      }
      if (c.cursor() != last + 1) {
        return false;
      }
      offer(RoomHub.live(c, render));
      last = c.cursor();
    }
    return true;
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

  /** Offers every confirmation after {@link #last}; holds {@link #lock}. */
  private void drain() {
    List<Confirmed> page;
    do {
      page = feed.after(room, last, 0, PAGE);
      for (Confirmed c : page) {
        offer(RoomHub.live(c, render));
        last = c.cursor();
      }
    } while (page.size() == PAGE);
  }

  /** Offers {@code m} to every subscriber, dropping those that refuse it; holds {@link #lock}. */
  private void offer(LiveMessage m) {
    for (Subscriber s : subscribers) {
      if (!s.offer(m)) {
        subscribers.remove(s);
      }
    }
  }

  /**
   * Has {@code pool} read SQL for this room soon, unless a read is already waiting there: any
   * number of wake-ups while one waits cost one read.
   */
  void schedule(Executor pool) {
    if (scheduled.compareAndSet(false, true)) {
      try {
        pool.execute(
            () -> {
              scheduled.set(false);
              wake();
            });
      } catch (RuntimeException e) {
        scheduled.set(false);
        log.debug("room {}: fan-out pool refused a read: {}", room, e.toString());
      }
    }
  }
}
