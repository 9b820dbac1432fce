package dev.danmakuledger.edge.capture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Submissions waiting for the writer, in arrival order, drained into group commits of up to {@value
 * #MAX_BATCH} records, and the turn to commit: one committer at a time, either the writer with the
 * batches it drained or a thread committing a lone capture itself ({@link #claimIdle}). A lone
 * capture takes the turn only when nothing is queued and nobody commits, so captures commit in the
 * order they were submitted. A bulk submission stays one element so it commits together. Closing
 * queues a stop mark behind everything already submitted, so nothing accepted is dropped.
 */
final class CaptureQueue {
  /** Most records per transaction. */
  static final int MAX_BATCH = 1024;

  /** Queued by {@link #close()}; compared by identity. */
  private static final List<Pending> STOP = Collections.unmodifiableList(new ArrayList<>());

  /** Requests drained for one transaction; {@code stop} if the stop mark was met. */
  record Batch(List<Pending> requests, boolean stop) {}

  private final ArrayDeque<List<Pending>> queue = new ArrayDeque<>();
  private final AtomicInteger queued = new AtomicInteger();
  private boolean closed;

  /** Whether a committer holds the turn (guarded by this). */
  private boolean committing;

  /**
   * Queues one submission for the writer.
   *
   * @throws IllegalStateException after {@link #close()}
   */
  synchronized void add(List<Pending> submission) {
    if (closed) {
      throw new IllegalStateException("capture service is closed");
    }
    queued.addAndGet(submission.size());
    queue.add(submission);
    notifyAll();
  }

  /**
   * Takes the turn to commit for the calling thread if nothing is queued and nobody commits; the
   * caller must {@link #release()} it.
   *
   * @return false if another committer or queued work comes first (then submit through {@link
   *     #add})
   * @throws IllegalStateException after {@link #close()}
   */
  synchronized boolean claimIdle() {
    if (closed) {
      throw new IllegalStateException("capture service is closed");
    }
    if (committing || !queue.isEmpty()) {
      return false;
    }
    committing = true;
    return true;
  }

  /** Gives up the turn, so the writer may take what was queued meanwhile. */
  synchronized void release() {
    if (!committing) {
      throw new IllegalStateException("release: got no committer, want the turn held");
    }
    committing = false;
    notifyAll();
  }

  /** Queues the stop mark; false if already closed. */
  synchronized boolean close() {
    if (closed) {
      return false;
    }
    closed = true;
    queue.add(STOP);
    notifyAll();
    return true;
  }

  /** Requests still queued. */
  int queued() {
    return queued.get();
  }

  /**
   * Waits for the turn and the next batch, for the writer; null once stopped or interrupted. The
   * writer holds the turn until it {@link #release}s it.
   */
  synchronized Batch take() {
    try {
      while (committing || queue.isEmpty()) {
        wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    if (queue.peek() == STOP) {
      return null;
    }
    committing = true;
    return drainAfter(queue.poll());
  }

  /**
   * The next batch for the writer, which holds the turn, if one is queued, without waiting: null if
   * none, an empty stopping batch if the stop mark is next.
   */
  synchronized Batch poll() {
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
