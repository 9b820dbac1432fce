package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.bloom.BloomFilter;
import dev.danmakuledger.edge.store.NewRecord;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.merkle.compact.CompactRange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one capture transaction will do, decided by {@link BatchPlanner} before it runs: the verdict
 * for every request of the batch, the new records (stamped, encoded, hashed), the compact range and
 * the signed checkpoint note for the new size, and the batch's dedupe counts. Nothing of it is
 * visible to anyone until the transaction commits; then {@link #complete} answers the futures.
 */
final class Plan {
  final List<Result> results;
  final List<Pending> fresh = new ArrayList<>();

  /** Packed hybrid logical clocks of {@link #fresh}, in the same order. */
  final List<Long> clocks = new ArrayList<>();

  final List<NewRecord> newRecords = new ArrayList<>();
  final List<BloomFilter.Hash> newHashes = new ArrayList<>();

  /** The new keys of this plan, so a plan made on top of it sees them as repeats. */
  final Map<String, Planned> planned;

  /** The dedupe counts of classifying the batch (captures are counted once it commits). */
  DedupeCounts counts = DedupeCounts.ZERO;

  /** Log size, compact range and signed checkpoint note once this plan commits. */
  long newSize;

  CompactRange range;
  String note;

  Plan(int n) {
    results = new ArrayList<>(n);
    planned = new HashMap<>(n * 2);
  }

  /** Completes every future; {@code failure} (non-null) fails what depended on the transaction. */
  void complete(Exception failure) {
    for (Result r : results) {
      r.complete(failure);
    }
  }

  /** A new record's place in the log, as acknowledged once its transaction commits. */
  record Planned(String key, long index, long capturedAt, String contentHash) {
    CaptureAck ack(boolean repeat) {
      return new CaptureAck(key, index, capturedAt, repeat, null, null, null);
    }
  }

  /** What one request of a batch turned out to be. */
  record Result(
      Pending pending, Planned planned, StoredRecord stored, boolean repeat, boolean conflict) {
    static Result fresh(Pending p, Planned plan) {
      return new Result(p, plan, null, false, false);
    }

    static Result repeatOf(Pending p, Planned plan) {
      return new Result(p, plan, null, true, false);
    }

    static Result conflictWith(Pending p, Planned plan) {
      return new Result(p, plan, null, false, true);
    }

    static Result repeatOfStored(Pending p, StoredRecord r) {
      return new Result(p, null, r, true, false);
    }

    static Result conflictWithStored(Pending p, StoredRecord r) {
      return new Result(p, null, r, false, true);
    }

    /** Completes the future; {@code failure} (non-null) fails what depended on the batch. */
    void complete(Exception failure) {
      if (stored != null) {
        CaptureAck original = CaptureAck.of(stored, true);
        if (conflict) {
          pending
              .future()
              .completeExceptionally(
                  new IdempotencyConflictException(
                      original, stored.contentHash(), pending.contentHash()));
        } else {
          pending.future().complete(original);
        }
        return;
      }
      if (failure != null) {
        pending.future().completeExceptionally(failure);
      } else if (conflict) {
        pending
            .future()
            .completeExceptionally(
                new IdempotencyConflictException(
                    planned.ack(true), planned.contentHash(), pending.contentHash()));
      } else {
        pending.future().complete(planned.ack(repeat));
      }
    }
  }
}
