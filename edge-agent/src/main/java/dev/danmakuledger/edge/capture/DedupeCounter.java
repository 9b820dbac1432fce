package dev.danmakuledger.edge.capture;

/**
 * The kinds of cumulative duplicate-check counter of the device (docs/architecture.md §5, check 1),
 * each persisted under a stable name in the store's {@code counters} table.
 */
enum DedupeCounter {
  /** Bloom queries. */
  CHECKS("bloom_checks"),
  /** Bloom "maybe" answers, each followed by an exact lookup. */
  MAYBES("bloom_maybes"),
  /** Repeats confirmed exactly (same key, same content), including repeats inside one batch. */
  DUPLICATES("duplicates"),
  /** "Maybe" answers whose exact lookup found the key (repeats and conflicts). */
  BLOOM_HITS("bloom_hits"),
  /** "Maybe" answers whose exact lookup found nothing. */
  FALSE_POSITIVES("bloom_false_positives"),
  /** Repeats the Bloom filter had forgotten, caught by an exact lookup of every key. */
  BLOOM_MISSES("bloom_misses"),
  /** Same key, different content. */
  CONFLICTS("conflicts"),
  /** Records newly appended to the log. */
  CAPTURES("captures");

  private static final DedupeCounter[] ALL = values();

  private final String column;

  DedupeCounter(String column) {
    this.column = column;
  }

  /** The counter's name in the store. */
  String column() {
    return column;
  }

  static DedupeCounter[] all() {
    return ALL;
  }
}
