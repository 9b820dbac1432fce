package dev.danmakuledger.protocol.wire;

/**
 * Cumulative duplicate-check counters an edge agent reports with each batch (docs/architecture.md
 * §5, check 1).
 *
 * @param bloomChecks captures looked up in the Bloom filter
 * @param bloomMaybe lookups the filter answered "maybe seen"
 * @param edgeDuplicates "maybe" answers the exact SQLite lookup confirmed as duplicates
 * @param bloomFalsePositives "maybe" answers the exact lookup found to be new
 */
public record BatchMetadata(
    long bloomChecks, long bloomMaybe, long edgeDuplicates, long bloomFalsePositives) {
  /** Checks that required members are present and counts are not negative. */
  public BatchMetadata {
    Checks.nonNegative("bloomChecks", bloomChecks);
    Checks.nonNegative("bloomMaybe", bloomMaybe);
    Checks.nonNegative("edgeDuplicates", edgeDuplicates);
    Checks.nonNegative("bloomFalsePositives", bloomFalsePositives);
  }
}
