package dev.danmakuledger.edge.capture;

/**
 * Cumulative duplicate-check counters of the device (ARCHITECTURE §5, check 1).
 *
 * @param checks Bloom queries
 * @param maybes Bloom "maybe" answers, each followed by an exact lookup
 * @param duplicates repeats confirmed exactly (same key, same content), including repeats inside
 *     one batch
 * @param bloomDuplicates the part of {@code duplicates} that the Bloom filter flagged
 * @param falsePositives "maybe" answers whose exact lookup found nothing
 * @param bloomMisses repeats the Bloom filter had forgotten (older than two generations), caught by
 *     the store's UNIQUE index
 * @param conflicts same key, different content
 * @param captures records newly appended to the log
 * @param configuredFpr the configured combined false-positive rate p
 * @param memoryBytes bytes held by the filter's bit arrays
 * @param rotations generations started since the store was created
 */
public record DedupeStats(
    long checks,
    long maybes,
    long duplicates,
    long bloomDuplicates,
    long falsePositives,
    long bloomMisses,
    long conflicts,
    long captures,
    double configuredFpr,
    long memoryBytes,
    long rotations) {

  /** False positives over the checks of keys that were in fact new; 0 before any. */
  public double measuredFpr() {
    long negatives = checks - bloomDuplicates;
    return negatives <= 0 ? 0 : (double) falsePositives / negatives;
  }
}
