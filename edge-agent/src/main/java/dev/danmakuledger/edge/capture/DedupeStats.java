package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.bloom.BloomFilter;
import java.util.Map;

/**
 * Cumulative duplicate-check counters of the device (docs/architecture.md §5, check 1), as reported
 * by {@code status} and {@code GET /v1/status}; the counter kinds are {@link DedupeCounter}.
 *
 * @param checks Bloom queries
 * @param maybes Bloom "maybe" answers, each followed by an exact lookup
 * @param duplicates repeats confirmed exactly (same key, same content), including repeats inside
 *     one batch
 * @param bloomHits "maybe" answers whose exact lookup found the key (repeats and conflicts)
 * @param falsePositives "maybe" answers whose exact lookup found nothing
 * @param bloomMisses repeats the Bloom filter had forgotten (older than two generations), caught by
 *     the store's UNIQUE index
 * @param conflicts same key, different content
 * @param captures records newly appended to the log
 * @param configuredFpr the configured combined false-positive rate p
 * @param memoryBytes bytes held by the filter's bit arrays
 * @param rotations generations started since the store was created
 * @param measuredFpr false positives over the checks of keys that were in fact absent from the
 *     store (0 before any)
 */
public record DedupeStats(
    long checks,
    long maybes,
    long duplicates,
    long bloomHits,
    long falsePositives,
    long bloomMisses,
    long conflicts,
    long captures,
    double configuredFpr,
    long memoryBytes,
    long rotations,
    double measuredFpr) {

  /**
   * Stats with {@code measuredFpr} computed from the counts.
   *
   * @param memoryBytes bytes held by the filter's bit arrays
   * @param rotations generations started since the store was created
   */
  static DedupeStats of(DedupeCounts c, double configuredFpr, long memoryBytes, long rotations) {
    long checks = c.get(DedupeCounter.CHECKS);
    long bloomHits = c.get(DedupeCounter.BLOOM_HITS);
    long bloomMisses = c.get(DedupeCounter.BLOOM_MISSES);
    long falsePositives = c.get(DedupeCounter.FALSE_POSITIVES);
    long negatives = checks - bloomHits - bloomMisses;
    double measured = negatives <= 0 ? 0 : (double) falsePositives / negatives;
    return new DedupeStats(
        checks,
        c.get(DedupeCounter.MAYBES),
        c.get(DedupeCounter.DUPLICATES),
        bloomHits,
        falsePositives,
        bloomMisses,
        c.get(DedupeCounter.CONFLICTS),
        c.get(DedupeCounter.CAPTURES),
        configuredFpr,
        memoryBytes,
        rotations,
        measured);
  }

  /**
   * Stats from the persisted counters of a store that is not running, with the memory a full pair
   * of generations of {@code bloom} takes.
   */
  public static DedupeStats fromCounters(Map<String, Long> c, BloomConfig bloom, long rotations) {
    long bits = BloomFilter.optimalBits(bloom.expectedItems(), bloom.perGenerationRate());
    return of(
        DedupeCounts.fromColumns(c),
        bloom.falsePositiveRate(),
        2 * ((bits + 63) / 64 * Long.BYTES),
        rotations);
  }
}
