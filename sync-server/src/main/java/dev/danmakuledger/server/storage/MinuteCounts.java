package dev.danmakuledger.server.storage;

/**
 * What happened during one minute, on one instance or summed over the cluster (docs/sync-server.md,
 * "History"). Every member is a count of that minute except {@code subscribers}, the peak number of
 * open room-stream subscribers.
 *
 * @param batches batches stored
 * @param records record outcomes of those batches, every kind
 * @param confirmed records numbered and broadcast
 * @param pending records held for review
 * @param duplicates records whose key was already stored (Redis or SQL caught it)
 * @param conflicts records whose key was stored with other content
 * @param rejected records refused (invalid or moderated)
 * @param subscribers peak open room-stream subscribers
 * @param admitMicros time spent in the Redis admit of those batches, microseconds
 * @param commitMicros time spent in their SQL commit, microseconds
 */
public record MinuteCounts(
    long batches,
    long records,
    long confirmed,
    long pending,
    long duplicates,
    long conflicts,
    long rejected,
    long subscribers,
    long admitMicros,
    long commitMicros) {
  /** Nothing happened. */
  public static final MinuteCounts ZERO = new MinuteCounts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** Rejects negative counts. */
  public MinuteCounts {
    long[] all = {
      batches,
      records,
      confirmed,
      pending,
      duplicates,
      conflicts,
      rejected,
      subscribers,
      admitMicros,
      commitMicros
    };
    for (long v : all) {
      if (v < 0) {
        throw new IllegalArgumentException("minute counts: got " + this + ", want all >= 0");
      }
    }
  }

  /**
   * The counts since {@code earlier}, with {@code peakSubscribers} as subscribers; a counter that
   * went down (it cannot, unless the source was replaced) counts as zero.
   */
  public MinuteCounts since(MinuteCounts earlier, long peakSubscribers) {
    return new MinuteCounts(
        Math.max(0, batches - earlier.batches),
        Math.max(0, records - earlier.records),
        Math.max(0, confirmed - earlier.confirmed),
        Math.max(0, pending - earlier.pending),
        Math.max(0, duplicates - earlier.duplicates),
        Math.max(0, conflicts - earlier.conflicts),
        Math.max(0, rejected - earlier.rejected),
        Math.max(0, peakSubscribers),
        Math.max(0, admitMicros - earlier.admitMicros),
        Math.max(0, commitMicros - earlier.commitMicros));
  }
}
