package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.OutcomeUpdate;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Pushes an edge agent's SQLite device log to the sync server by the witness protocol
 * (docs/architecture.md §4), as the harnesses need it: resume from the size of the agent's latest
 * receipt, send the stored records up to a stored device-signed checkpoint, store the outcomes and
 * the receipt, and on 409 size-mismatch resume from the server's verified size. Records are sent as
 * stored (their index column and canonical bytes), so a tampered store reaches the server as it is.
 */
public final class StoreSync {
  private final LedgerClient client;
  private final int maxBatch;
  private final Clock clock;

  /** How a push ended. */
  public record Result(boolean synced, long serverSize, int batches, String refusal) {
    static Result synced(long size, int batches) {
      return new Result(true, size, batches, null);
    }

    static Result refused(long size, int batches, String why) {
      return new Result(false, size, batches, why);
    }
  }

  /**
   * @param client the server
   * @param maxBatch most records per batch (the server's limit is 1000)
   * @param clock stamps the stored outcomes and receipts
   */
  public StoreSync(LedgerClient client, int maxBatch, Clock clock) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("max batch: got " + maxBatch + ", want >= 1");
    }
    this.client = client;
    this.maxBatch = maxBatch;
    this.clock = clock;
  }

  /**
   * Pushes until the server has verified everything stored, or the server refuses a batch.
   *
   * @throws IOException when the server cannot be reached (the caller retries)
   */
  public Result push(String deviceId, EdgeStore store)
      throws IOException, InterruptedException, StoreException {
    return push(deviceId, store, Long.MAX_VALUE);
  }

  /**
   * As {@link #push(String, EdgeStore)}, but only records below {@code upTo} (a stored checkpoint
   * size) are sent.
   */
  public Result push(String deviceId, EdgeStore store, long upTo)
      throws IOException, InterruptedException, StoreException {
    long from = store.latestReceipt().map(StoredCheckpoint::size).orElse(0L);
    int batches = 0;
    for (int attempt = 0; attempt < 10_000; attempt++) {
      long end = Math.min(upTo, store.logState().size());
      StoredCheckpoint cp = checkpointAfter(store, from, end);
      if (cp == null) {
        if (from >= end) {
          return Result.synced(from, batches);
        }
        return Result.refused(from, batches, "no stored checkpoint covers records from " + from);
      }
      List<StoredRecord> rows = store.records(from, (int) (cp.size() - from));
      List<WireRecord> wire = new ArrayList<>(rows.size());
      Base64.Encoder b64 = Base64.getEncoder();
      for (StoredRecord r : rows) {
        wire.add(new WireRecord(r.index(), b64.encodeToString(r.canonical())));
      }
      LedgerClient.Reply<BatchResponse> reply =
          client.postBatch(deviceId, new BatchRequest(from, wire, cp.note(), null));
      batches++;
      if (reply.ok()) {
        apply(store, reply.body(), cp.size());
        from = cp.size();
        continue;
      }
      if (reply.status() == 409 && "size-mismatch".equals(reply.code())) {
        LedgerClient.Reply<LogState> log = client.log(deviceId);
        if (!log.ok()) {
          return Result.refused(from, batches, "log: " + log.code());
        }
        long server = log.body().verifiedSize();
        if (server > end) {
          return Result.refused(
              server, batches, "server verified " + server + " records, the store has " + end);
        }
        if (server == from) {
          return Result.refused(from, batches, "size-mismatch at the server's own size " + from);
        }
        from = server;
        continue;
      }
      return Result.refused(
          from,
          batches,
          reply.code() + (reply.problem() == null ? "" : ": " + reply.problem().detail()));
    }
    throw new IllegalStateException("push of " + deviceId + " did not converge in 10000 batches");
  }

  /** The largest stored checkpoint in (from, from + maxBatch], else the smallest above from. */
  private StoredCheckpoint checkpointAfter(EdgeStore store, long from, long end)
      throws StoreException {
    StoredCheckpoint best = null;
    StoredCheckpoint smallestAbove = null;
    for (StoredCheckpoint cp : store.checkpoints()) {
      if (cp.size() <= from || cp.size() > end) {
        continue;
      }
      if (smallestAbove == null || cp.size() < smallestAbove.size()) {
        smallestAbove = cp;
      }
      if (cp.size() <= from + maxBatch && (best == null || cp.size() > best.size())) {
        best = cp;
      }
    }
    return best != null ? best : smallestAbove;
  }

  private void apply(EdgeStore store, BatchResponse res, long size) throws StoreException {
    long now = clock.millis();
    List<OutcomeUpdate> updates = new ArrayList<>(res.outcomes().size());
    for (RecordOutcome o : res.outcomes()) {
      updates.add(
          new OutcomeUpdate(
              o.index(), o.outcome().name(), o.seq(), o.messageId(), o.reason(), now));
    }
    store.applyOutcomes(updates);
    if (res.receipt() != null) {
      store.saveReceipt(size, res.receipt(), now);
    }
  }
}
