package dev.danmakuledger.edge.capture;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An immutable set of {@link DedupeCounter} values: the counts of one batch, the counts not yet
 * persisted, or the device's totals. Converted to and from the store's named counters at the
 * boundary only.
 */
final class DedupeCounts {
  static final DedupeCounts ZERO = new DedupeCounts(new long[DedupeCounter.all().length]);

  private final long[] values;

  private DedupeCounts(long[] values) {
    this.values = values;
  }

  /** The counts persisted under their {@link DedupeCounter#column()} names; others are ignored. */
  static DedupeCounts fromColumns(Map<String, Long> columns) {
    long[] v = new long[DedupeCounter.all().length];
    for (DedupeCounter c : DedupeCounter.all()) {
      Long n = columns.get(c.column());
      v[c.ordinal()] = n == null ? 0 : n;
    }
    return new DedupeCounts(v);
  }

  long get(DedupeCounter counter) {
    return values[counter.ordinal()];
  }

  DedupeCounts plus(DedupeCounts other) {
    if (other.isZero()) {
      return this;
    }
    long[] v = values.clone();
    for (int i = 0; i < v.length; i++) {
      v[i] += other.values[i];
    }
    return new DedupeCounts(v);
  }

  /** These counts with {@code n} more of {@code counter}. */
  DedupeCounts plus(DedupeCounter counter, long n) {
    long[] v = values.clone();
    v[counter.ordinal()] += n;
    return new DedupeCounts(v);
  }

  boolean isZero() {
    for (long v : values) {
      if (v != 0) {
        return false;
      }
    }
    return true;
  }

  /** The non-zero counts by store name, in counter order. */
  Map<String, Long> columns() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (DedupeCounter c : DedupeCounter.all()) {
      if (values[c.ordinal()] != 0) {
        out.put(c.column(), values[c.ordinal()]);
      }
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DedupeCounts d && Arrays.equals(values, d.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "DedupeCounts" + columns();
  }

  /** Counts one batch as it is classified; not thread-safe, used by one planning call. */
  static final class Tally {
    private final long[] values = new long[DedupeCounter.all().length];

    void add(DedupeCounter counter) {
      values[counter.ordinal()]++;
    }

    DedupeCounts counts() {
      return new DedupeCounts(values.clone());
    }
  }
}
