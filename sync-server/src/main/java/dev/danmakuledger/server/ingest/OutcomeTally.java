package dev.danmakuledger.server.ingest;

import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The outcomes of the batches this instance stored (not replays of stored ones), by kind: this
 * instance's own share of the cluster-wide {@code counters} table, which the per-minute history
 * samples (docs/sync-server.md, "History"). Thread-safe.
 */
public final class OutcomeTally {
  private final Map<Outcome, LongAdder> counts = new EnumMap<>(Outcome.class);

  OutcomeTally() {
    for (Outcome o : Outcome.values()) {
      counts.put(o, new LongAdder());
    }
  }

  void count(List<RecordOutcome> outcomes) {
    for (RecordOutcome r : outcomes) {
      counts.get(r.outcome()).increment();
    }
  }

  /** Records that got {@code outcome} so far. */
  public long get(Outcome outcome) {
    return counts.get(outcome).sum();
  }

  /** Records of every outcome so far. */
  public long total() {
    long n = 0;
    for (LongAdder a : counts.values()) {
      n += a.sum();
    }
    return n;
  }
}
