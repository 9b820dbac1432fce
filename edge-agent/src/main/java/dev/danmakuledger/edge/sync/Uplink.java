package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.protocol.wire.AcksResponse;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.LogState;
import java.io.IOException;
import java.time.Clock;
import java.util.function.Supplier;

/**
 * One device's requests to the sync server in a sync run, each through the {@link Retrier}. Reads
 * that the server refuses stop the run ({@link Refusals}); a refused batch is left to the caller,
 * which may resume or halve it. Each attempt of a batch carries a freshly signed report (docs/
 * sync.md, "Signed reports"), so a retry reports the failure before it.
 */
final class Uplink {
  private final SyncClient client;
  private final String deviceId;
  private final Retrier retrier;
  private final Refusals refusals;
  private final EdgeStore store;
  private final SyncState state;
  private final ReportSigner reports;
  private final Supplier<BatchMetadata> metadata;
  private final Clock clock;

  Uplink(
      SyncClient client,
      DeviceIdentity identity,
      Retrier retrier,
      EdgeStore store,
      SyncState state,
      Supplier<BatchMetadata> metadata,
      Clock clock) {
    this.client = client;
    this.deviceId = identity.deviceId();
    this.retrier = retrier;
    this.refusals = new Refusals(identity.deviceId());
    this.store = store;
    this.state = state;
    this.reports = new ReportSigner(store, identity, clock);
    this.metadata = metadata;
    this.clock = clock;
  }

  /** The server's view of the device log. */
  LogState log() throws IOException, InterruptedException {
    try {
      return retrier.call(Retrier.Kind.READ, () -> client.log(deviceId));
    } catch (ServerProblemException e) {
      throw refusals.stopped(e);
    }
  }

  /** The stored outcomes of the records {@code [from, to)}. */
  AcksResponse acks(long from, long to) throws IOException, InterruptedException {
    try {
      return retrier.call(Retrier.Kind.READ, () -> client.acks(deviceId, from, to));
    } catch (ServerProblemException e) {
      throw refusals.stopped(e);
    }
  }

  /**
   * Sends {@code batch}.
   *
   * @throws ServerProblemException if the server refused it (not transiently)
   */
  BatchResponse post(Batch batch) throws IOException, InterruptedException {
    return retrier.call(Retrier.Kind.UPLOAD, () -> client.postBatch(deviceId, request(batch)));
  }

  /**
   * The request of {@code batch}, with its report numbered and signed now: the attempt that sends
   * it is the caller's ({@link #postOnce}).
   */
  BatchRequest request(Batch batch) throws IOException {
    return new BatchRequest(batch.from(), batch.wire(), batch.note(), report(batch));
  }

  /**
   * One attempt of the batch encoded in {@code body}, without retries; safe to call from several
   * threads at once. {@code bodySent} runs once the request body was written to the connection.
   *
   * @throws ServerProblemException if the server refused it
   * @throws IOException if no answer arrived
   */
  BatchResponse postOnce(SyncClient.Encoded body, Runnable bodySent) throws IOException {
    return client.postBatch(deviceId, body, bodySent);
  }

  /** The body of {@code request}, encoded (and compressed) ahead of its upload. */
  SyncClient.Encoded encode(BatchRequest request) throws IOException {
    return client.encode(request);
  }

  /** The most batches in flight the server announced last (1 if it did not). */
  int serverWindow() {
    return client.serverWindow();
  }

  /** Why the refusal {@code e} stops the run. */
  SyncStoppedException stopped(ServerProblemException e) {
    return refusals.stopped(e);
  }

  /**
   * The counters to report with {@code batch}, stamped with this device's clock for the server's
   * skew, with the upload queue's state (docs/sync.md, "Queue state"), numbered and signed by the
   * device key ("Signed reports"); null when the supplier has none (the server then leaves the
   * device's counters, skew and queue state as they were).
   */
  private BatchMetadata report(Batch batch) throws IOException {
    BatchMetadata m = metadata.get();
    if (m == null) {
      return null;
    }
    return reports.sign(
        m.sentAt(clock.millis())
            .withQueue(store.oldestUnsyncedCapturedAt().orElse(null), state.last()),
        batch.from(),
        batch.head());
  }
}
