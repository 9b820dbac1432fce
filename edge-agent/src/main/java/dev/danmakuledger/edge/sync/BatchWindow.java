package dev.danmakuledger.edge.sync;

import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The batches of one device in flight at once (docs/sync.md, "Batches in flight"): each is sent, in
 * one attempt, as soon as it is cut, while the ones before it wait for their replies; replies are
 * handed back strictly in log order, whatever order they arrive in, so batch k is checked and
 * stored only after k-1. Each request runs on a thread of its own with a connection of its own
 * ({@link SyncClient#connectionPool()}) and encodes (and compresses) its body at once; its upload
 * starts once the body of the batch before it was written, so that the server receives them in log
 * order and chains each behind the one before; a batch whose predecessor never reached the server
 * is not sent at all. The requests and their signed reports are built on the caller's thread, in
 * log order.
 *
 * <p>Not thread-safe: driven by one {@link Syncer} run at a time.
 */
final class BatchWindow {
  /**
   * A batch's reply, in log order.
   *
   * @param response the server's answer, or null if {@code failure} is set
   * @param failure why no answer was accepted (a refusal or no answer at all), or null
   */
  record Reply(Batch batch, BatchResponse response, IOException failure) {}

  /**
   * A batch in flight.
   *
   * @param written completes once its body was written to the connection (true) or its request
   *     ended without that (false)
   */
  private record Sent(
      Batch batch, Future<BatchResponse> reply, CompletableFuture<Boolean> written) {}

  private final Uplink uplink;
  private final ExecutorService senders;
  private final Deque<Sent> inFlight = new ArrayDeque<>();

  BatchWindow(Uplink uplink) {
    this.uplink = uplink;
    this.senders =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "edge-sync-batch");
              t.setDaemon(true);
              return t;
            });
  }

  /** Batches sent whose replies were not taken yet. */
  int size() {
    return inFlight.size();
  }

  /** Where the next batch starts: the end of the last one in flight, else {@code verified}. */
  LogPrefix tip(LogPrefix verified) {
    return inFlight.isEmpty() ? verified : inFlight.peekLast().batch().prefix();
  }

  /**
   * Sends {@code batch}, which must start at {@link #tip}.
   *
   * @throws IOException if its report cannot be numbered (the store failed)
   */
  void send(Batch batch) throws IOException {
    BatchRequest request = uplink.request(batch);
    CompletableFuture<Boolean> before =
        inFlight.isEmpty()
            ? CompletableFuture.completedFuture(true)
            : inFlight.peekLast().written();
    CompletableFuture<Boolean> written = new CompletableFuture<>();
    Future<BatchResponse> reply =
        senders.submit(
            () -> {
              try {
                SyncClient.Encoded body = uplink.encode(request);
                if (!awaitWritten(before)) {
                  throw new IOException(
                      "records ["
                          + batch.from()
                          + ", "
                          + batch.end()
                          + ") not sent: the batch before them did not reach the server");
                }
                return uplink.postOnce(body, () -> written.complete(true));
              } finally {
                written.complete(false);
              }
            });
    inFlight.add(new Sent(batch, reply, written));
  }

  /**
   * Waits until the batch before was written (true) or ended without it (false): uploads go one
   * after the other, in log order, and share the link instead of splitting it, while the replies
   * are awaited together.
   */
  private static boolean awaitWritten(CompletableFuture<Boolean> before)
      throws InterruptedIOException {
    try {
      return before.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("abandoned before it was sent");
    } catch (ExecutionException e) {
      return false;
    }
  }

  /**
   * The reply to the oldest batch in flight, once it arrived; the window must not be empty.
   *
   * @throws InterruptedException if interrupted while waiting; every batch is then abandoned
   */
  Reply next() throws InterruptedException {
    Sent s = inFlight.remove();
    try {
      return new Reply(s.batch(), s.reply().get(), null);
    } catch (InterruptedException e) {
      cancel();
      throw e;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        return new Reply(s.batch(), null, io);
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("batch [" + s.batch().from() + ", ...)", e.getCause());
    }
  }

  /**
   * Ends the window: waits until every batch still in flight was answered or failed, and drops what
   * came back, so that no request of this run is still under way when the run resumes. The server
   * keeps what it stored; a resend is answered from it.
   *
   * @return the batches that were in flight, in log order
   */
  List<Batch> abandon() throws InterruptedException {
    List<Batch> abandoned = new ArrayList<>(inFlight.size());
    for (Sent s : inFlight) {
      abandoned.add(s.batch());
    }
    try {
      for (Sent s : inFlight) {
        try {
          s.reply().get();
        } catch (ExecutionException dropped) {
          // the window ended before this batch: its failure is not the run's
        }
      }
    } catch (InterruptedException e) {
      cancel();
      throw e;
    }
    inFlight.clear();
    return abandoned;
  }

  private void cancel() {
    for (Sent s : inFlight) {
      s.reply().cancel(true);
    }
    inFlight.clear();
  }
}
