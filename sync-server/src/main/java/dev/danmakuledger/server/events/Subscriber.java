package dev.danmakuledger.server.events;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscriber's bounded outbox (docs/sync-server.md, "Room streams"): the room's channel offers
 * messages without blocking; a writer task on the shared writer pool sends them to the {@link
 * Sink}. When more than {@code capacity} messages wait, the subscriber is too far behind: the queue
 * is dropped, and once its writer is free it is told to resume after the last cursor it was sent
 * and is closed. Cursor order and once-only are kept by sending only cursors above the last one.
 */
final class Subscriber {
  private static final Logger log = LoggerFactory.getLogger(Subscriber.class);

  private final Sink sink;
  private final int capacity;
  private final Executor writers;
  private final ArrayDeque<LiveMessage> queue = new ArrayDeque<>();
  private long lastQueued;
  private long lastSent;
  private boolean writing;
  private boolean cut;
  private boolean done;

  Subscriber(Sink sink, int capacity, Executor writers, long lastSent) {
    this.sink = sink;
    this.capacity = capacity;
    this.writers = writers;
    this.lastSent = lastSent;
    this.lastQueued = lastSent;
  }

  /** Offers a message without blocking; false once this subscriber is cut off or closed. */
  synchronized boolean offer(LiveMessage m) {
    if (cut || done || sink.closed()) {
      return false;
    }
    if (m.cursor() <= lastQueued) {
      return true;
    }
    if (queue.size() >= capacity) {
      cut = true;
      queue.clear();
      log.info("room subscriber cut off after cursor {}: more than {} queued", lastSent, capacity);
    } else {
      queue.add(m);
      lastQueued = m.cursor();
    }
    schedule();
    return !cut;
  }

  /** The highest cursor handed to this subscriber so far. */
  synchronized long lastQueued() {
    return lastQueued;
  }

  synchronized boolean active() {
    return !cut && !done && !sink.closed();
  }

  synchronized int queued() {
    return queue.size();
  }

  private void schedule() {
    if (!writing) {
      writing = true;
      writers.execute(this::drain);
    }
  }

  private void drain() {
    while (true) {
      LiveMessage next;
      boolean cutNow;
      long sent;
      synchronized (this) {
        sent = lastSent;
        cutNow = cut && !done;
        next = cutNow || done ? null : queue.poll();
        if (next == null && !cutNow) {
          writing = false;
          return;
        }
        if (cutNow) {
          done = true;
        }
      }
      try {
        if (cutNow) {
          sink.cutOff(sent, CutReason.TOO_SLOW);
          synchronized (this) {
            writing = false;
          }
          return;
        }
        sink.send(next);
        synchronized (this) {
          lastSent = next.cursor();
        }
      } catch (RuntimeException e) {
        log.debug("room subscriber gone: {}", e.toString());
        synchronized (this) {
          done = true;
          queue.clear();
          writing = false;
        }
        return;
      }
    }
  }
}
