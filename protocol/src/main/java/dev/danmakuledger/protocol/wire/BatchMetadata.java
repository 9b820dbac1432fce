package dev.danmakuledger.protocol.wire;

/**
 * Cumulative duplicate-check counters an edge agent reports with each batch (docs/architecture.md
 * §5, check 1).
 *
 * @param bloomChecks captures looked up in the Bloom filter
 * @param bloomMaybe lookups the filter answered "maybe seen"
 * @param edgeDuplicates "maybe" answers the exact SQLite lookup confirmed as duplicates
 * @param bloomFalsePositives "maybe" answers the exact lookup found to be new
 * @param deviceClockMillis the device's wall clock (epoch ms) when it sent the batch, or null
 *     (agents before this member): the server derives the device's clock skew from it
 */
public record BatchMetadata(
    long bloomChecks,
    long bloomMaybe,
    long edgeDuplicates,
    long bloomFalsePositives,
    Long deviceClockMillis) {
  /** Checks that required members are present and counts are not negative. */
  public BatchMetadata {
    Checks.nonNegative("bloomChecks", bloomChecks);
    Checks.nonNegative("bloomMaybe", bloomMaybe);
    Checks.nonNegative("edgeDuplicates", edgeDuplicates);
    Checks.nonNegative("bloomFalsePositives", bloomFalsePositives);
    if (deviceClockMillis != null) {
      Checks.nonNegative("deviceClockMillis", deviceClockMillis);
    }
  }

  /** Counters without a device clock. */
  public BatchMetadata(
      long bloomChecks, long bloomMaybe, long edgeDuplicates, long bloomFalsePositives) {
    this(bloomChecks, bloomMaybe, edgeDuplicates, bloomFalsePositives, null);
  }

  /** A copy stamped with the device's wall clock at sending. */
  public BatchMetadata sentAt(long deviceClockMillis) {
    return new BatchMetadata(
        bloomChecks, bloomMaybe, edgeDuplicates, bloomFalsePositives, deviceClockMillis);
  }
}
