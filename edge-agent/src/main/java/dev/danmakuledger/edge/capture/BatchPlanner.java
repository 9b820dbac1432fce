package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.NewRecord;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.clock.HybridLogicalClock;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * Plans a capture batch on top of a log state (docs/architecture.md §3, §5 check 1): classifies
 * each request as new, repeat or conflict (Bloom filter, exact lookup on "maybe", keys in flight),
 * stamps the new records with the hybrid logical clock, encodes their canonical bytes and RFC 6962
 * leaf hashes, appends them to a copy of the compact range and signs the C2SP checkpoint for the
 * new size. It changes no shared state but the clocks and only reads the Bloom filter, so the
 * writer can run it for the next batch while a transaction commits.
 */
final class BatchPlanner {
  /** Batches with at least this many new records are encoded in parallel. */
  static final int PARALLEL_ENCODE_MIN = 64;

  private final EdgeStore store;
  private final DeviceIdentity identity;
  private final BloomKeeper bloom;
  private final HybridLogicalClock hlc;
  private final Clock clock;

  BatchPlanner(
      EdgeStore store,
      DeviceIdentity identity,
      BloomKeeper bloom,
      HybridLogicalClock hlc,
      Clock clock) {
    this.store = store;
    this.identity = identity;
    this.bloom = bloom;
    this.hlc = hlc;
    this.clock = clock;
  }

  /**
   * Plans {@code batch} on top of a log of {@code baseSize} records with compact range {@code
   * baseRange}, where {@code inFlight} holds the keys of a transaction not yet committed. With
   * {@code exactForAll} every key gets an exact lookup (after the store reported a key the Bloom
   * filter had forgotten); {@code parallel} encodes large batches on the common pool.
   */
  Plan plan(
      List<Pending> batch,
      boolean exactForAll,
      long baseSize,
      CompactRange baseRange,
      Map<String, Plan.Planned> inFlight,
      boolean parallel) {
    Plan plan = decide(batch, exactForAll, baseSize, inFlight, parallel);
    if (plan.newRecords.isEmpty()) {
      plan.newSize = baseSize;
      plan.range = baseRange;
      return plan;
    }
    CompactRange next = baseRange.copy();
    for (NewRecord r : plan.newRecords) {
      next.append(r.leafHash());
    }
    plan.newSize = baseSize + plan.newRecords.size();
    plan.range = next;
    plan.note =
        Checkpoints.sign(
            new Checkpoint(identity.origin(), plan.newSize, next.root()), identity.signer());
    return plan;
  }

  /** Classifies every request of the batch; stamps and encodes the new ones. */
  private Plan decide(
      List<Pending> batch,
      boolean exactForAll,
      long baseSize,
      Map<String, Plan.Planned> inFlight,
      boolean parallel) {
    Plan plan = new Plan(batch.size());
    Map<String, Plan.Planned> planned = plan.planned;
    DedupeCounts.Tally tally = new DedupeCounts.Tally();
    long now = clock.millis();
    for (Pending p : batch) {
      Plan.Planned inBatch = planned.get(p.key());
      if (inBatch == null) {
        inBatch = inFlight.get(p.key());
      }
      if (inBatch != null) {
        boolean same = inBatch.contentHash().equals(p.contentHash());
        tally.add(same ? DedupeCounter.DUPLICATES : DedupeCounter.CONFLICTS);
        plan.results.add(
            same ? Plan.Result.repeatOf(p, inBatch) : Plan.Result.conflictWith(p, inBatch));
        continue;
      }
      boolean maybe = bloom.mightContain(p.bloomHash());
      tally.add(DedupeCounter.CHECKS);
      if (maybe) {
        tally.add(DedupeCounter.MAYBES);
      }
      if (maybe || exactForAll) {
        Optional<StoredRecord> existing = lookup(p.key());
        if (existing.isPresent()) {
          StoredRecord e = existing.get();
          boolean same = e.contentHash().equals(p.contentHash());
          tally.add(same ? DedupeCounter.DUPLICATES : DedupeCounter.CONFLICTS);
          tally.add(maybe ? DedupeCounter.BLOOM_HITS : DedupeCounter.BLOOM_MISSES);
          plan.results.add(
              same ? Plan.Result.repeatOfStored(p, e) : Plan.Result.conflictWithStored(p, e));
          continue;
        }
        if (maybe) {
          tally.add(DedupeCounter.FALSE_POSITIVES);
        }
      }
      long index = baseSize + plan.fresh.size();
      plan.fresh.add(p);
      plan.clocks.add(hlc.now().pack());
      plan.newHashes.add(p.bloomHash());
      Plan.Planned placed = new Plan.Planned(p.key(), index, now, p.contentHash());
      planned.put(p.key(), placed);
      plan.results.add(Plan.Result.fresh(p, placed));
    }
    plan.counts = tally.counts();
    encode(plan, baseSize, now, parallel);
    return plan;
  }

  /**
   * Canonical bytes and leaf hashes of the new records, the first at {@code firstIndex};
   * independent per record once index and clock are assigned, so with {@code parallel} large
   * batches use the common fork-join pool (the writer plans on the critical path and the submitting
   * threads are usually waiting for this very batch; a plan made ahead overlaps a commit instead).
   */
  private static void encode(Plan plan, long firstIndex, long capturedAt, boolean parallel) {
    int n = plan.fresh.size();
    NewRecord[] encoded = new NewRecord[n];
    IntStream indices = IntStream.range(0, n);
    if (parallel && n >= PARALLEL_ENCODE_MIN) {
      indices = indices.parallel();
    }
    indices.forEach(
        i -> {
          Pending p = plan.fresh.get(i);
          long index = firstIndex + i;
          byte[] canonical = p.encoded().canonicalAt(index, plan.clocks.get(i));
          encoded[i] =
              new NewRecord(
                  index,
                  p.key(),
                  p.contentHash(),
                  canonical,
                  Rfc6962.leafHash(canonical),
                  capturedAt);
        });
    plan.newRecords.addAll(Arrays.asList(encoded));
  }

  private Optional<StoredRecord> lookup(String key) {
    try {
      return store.findByKey(key);
    } catch (StoreException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
