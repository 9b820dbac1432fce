package dev.danmakuledger.protocol.wire;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What an edge agent reports with each batch besides its records: cumulative duplicate-check
 * counters (docs/architecture.md §5, check 1), its clock, and the state of its upload queue
 * (docs/sync.md, "Queue state"). Every member after the counters is optional, so batches of older
 * agents, which lack them, still parse; the queue-state members are left out when absent.
 *
 * @param bloomChecks captures looked up in the Bloom filter
 * @param bloomMaybe lookups the filter answered "maybe seen"
 * @param edgeDuplicates "maybe" answers the exact SQLite lookup confirmed as duplicates
 * @param bloomFalsePositives "maybe" answers the exact lookup found to be new
 * @param deviceClockMillis the device's wall clock (epoch ms) when it sent the batch, or null
 *     (agents before this member): the server derives the device's clock skew from it
 * @param oldestUnsyncedMillis the capture time (device clock, epoch ms) of the oldest record that
 *     has no server outcome when the batch is sent, or null (none, or an older agent)
 * @param lastAttempt the agent's previous sync attempt, or null (none yet, or an older agent)
 */
public record BatchMetadata(
    long bloomChecks,
    long bloomMaybe,
    long edgeDuplicates,
    long bloomFalsePositives,
    Long deviceClockMillis,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long oldestUnsyncedMillis,
    @JsonInclude(JsonInclude.Include.NON_NULL) SyncAttempt lastAttempt) {
  /** Checks that required members are present and counts and times are not negative. */
  public BatchMetadata {
    Checks.nonNegative("bloomChecks", bloomChecks);
    Checks.nonNegative("bloomMaybe", bloomMaybe);
    Checks.nonNegative("edgeDuplicates", edgeDuplicates);
    Checks.nonNegative("bloomFalsePositives", bloomFalsePositives);
    if (deviceClockMillis != null) {
      Checks.nonNegative("deviceClockMillis", deviceClockMillis);
    }
    if (oldestUnsyncedMillis != null) {
      Checks.nonNegative("oldestUnsyncedMillis", oldestUnsyncedMillis);
    }
  }

  /** Counters with a device clock and no queue state. */
  public BatchMetadata(
      long bloomChecks,
      long bloomMaybe,
      long edgeDuplicates,
      long bloomFalsePositives,
      Long deviceClockMillis) {
    this(
        bloomChecks,
        bloomMaybe,
        edgeDuplicates,
        bloomFalsePositives,
        deviceClockMillis,
        null,
        null);
  }

  /** Counters without a device clock. */
  public BatchMetadata(
      long bloomChecks, long bloomMaybe, long edgeDuplicates, long bloomFalsePositives) {
    this(bloomChecks, bloomMaybe, edgeDuplicates, bloomFalsePositives, null);
  }

  /** A copy stamped with the device's wall clock at sending. */
  public BatchMetadata sentAt(long deviceClockMillis) {
    return new BatchMetadata(
        bloomChecks,
        bloomMaybe,
        edgeDuplicates,
        bloomFalsePositives,
        deviceClockMillis,
        oldestUnsyncedMillis,
        lastAttempt);
  }

  /** A copy carrying the upload queue's state (either may be null). */
  public BatchMetadata withQueue(Long oldestUnsyncedMillis, SyncAttempt lastAttempt) {
    return new BatchMetadata(
        bloomChecks,
        bloomMaybe,
        edgeDuplicates,
        bloomFalsePositives,
        deviceClockMillis,
        oldestUnsyncedMillis,
        lastAttempt);
  }

  /** True when the agent reported any queue state (agents before these members never do). */
  public boolean reportsQueue() {
    return oldestUnsyncedMillis != null || lastAttempt != null;
  }
}
