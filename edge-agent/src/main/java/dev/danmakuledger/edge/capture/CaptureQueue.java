package dev.danmakuledger.edge.capture;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Submissions waiting for the writer, in arrival order, drained into group commits of up to {@value
 * #MAX_BATCH} records. A bulk submission stays one element so it commits together. Closing queues a
 * stop mark behind everything already submitted, so nothing accepted is dropped.
 */
final class CaptureQueue {
  /** Most records per transaction. */
  static final int MAX_BATCH = 1024;

  /** Queued by {@link #close()}; compared by identity. */
  private static final List<Pending> STOP = Collections.unmodifiableList(new ArrayList<>());

  /** Requests drained for one transaction; {@code stop} if the stop mark was met. */
  record Batch(List<Pending> requests, boolean stop) {}

  private final BlockingQueue<List<Pending>> queue = new LinkedBlockingQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final Object lifecycle = new Object();
  private boolean closed;

  /**
   * Queues one submission.
   *
   * @throws IllegalStateException after {@link #close()}
   */
  void add(List<Pending> submission) {
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("capture service is closed");
      }
      queued.addAndGet(submission.size());
      queue.add(submission);
    }
  }

  /** Queues the stop mark; false if already closed. */
  boolean close() {
    synchronized (lifecycle) {
      if (closed) {
        return false;
      }
      closed = true;
      queue.add(STOP);
      return true;
    }
  }

  /** Requests still queued. */
  int queued() {
    return queued.get();
  }

  /** Waits for the next batch; null once stopped or interrupted. */
  Batch take() {
    List<Pending> first;
    try {
      first = queue.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    if (first == STOP) {
      return null;
    }
    return drainAfter(first);
  }

  /**
   * The next batch if one is queued, without waiting: null if none, an empty stopping batch if the
   * stop mark is next.
   */
  Batch poll() {
    List<Pending> first = queue.poll();
    if (first == null) {
      return null;
    }
    if (first == STOP) {
      return new Batch(List.of(), true);
    }
    return drainAfter(first);
  }

  private Batch drainAfter(List<Pending> first) {
    List<Pending> batch = new ArrayList<>(Math.max(MAX_BATCH, first.size()));
    batch.addAll(first);
    boolean stop = false;
    for (List<Pending> next = queue.peek();
        next != null && batch.size() + next.size() <= MAX_BATCH;
        next = queue.peek()) {
      queue.poll();
      if (next == STOP) {
        stop = true;
        break;
      }
      batch.addAll(next);
    }
    queued.addAndGet(-batch.size());
    return new Batch(batch, stop);
  }
}
