package dev.danmakuledger.protocol.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.regex.Pattern;

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
 * @param reportSeq the report's number, larger than that of every report the device sent before, or
 *     null (an unsigned report of an older agent)
 * @param signature base64 of the device's C2SP signed-note signature (key hash and Ed25519
 *     signature) over the report text of docs/sync.md, "Signed reports", or null (an older agent)
 */
public record BatchMetadata(
    long bloomChecks,
    long bloomMaybe,
    long edgeDuplicates,
    long bloomFalsePositives,
    Long deviceClockMillis,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long oldestUnsyncedMillis,
    @JsonInclude(JsonInclude.Include.NON_NULL) SyncAttempt lastAttempt,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long reportSeq,
    @JsonInclude(JsonInclude.Include.NON_NULL) String signature) {
  /** Length of a signature: base64 of a 4-byte key hash and a 64-byte Ed25519 signature. */
  public static final int SIGNATURE_CHARS = 92;

  private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/]{91}=");

  /**
   * Checks that required members are present, counts and times are not negative, and a signature
   * comes with a report number and has the length and alphabet of one.
   */
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
    if (reportSeq != null) {
      Checks.nonNegative("reportSeq", reportSeq);
    }
    if (signature != null) {
      if (signature.length() != SIGNATURE_CHARS || !BASE64.matcher(signature).matches()) {
        throw new IllegalArgumentException(
            "signature: got "
                + signature.length()
                + " characters, want "
                + SIGNATURE_CHARS
                + " of base64 (a key hash and an Ed25519 signature)");
      }
      if (reportSeq == null) {
        throw new IllegalArgumentException("reportSeq: got null, want the signed report's number");
      }
    }
  }

  /** Unsigned counters, clock and queue state (as older agents send them). */
  public BatchMetadata(
      long bloomChecks,
      long bloomMaybe,
      long edgeDuplicates,
      long bloomFalsePositives,
      Long deviceClockMillis,
      Long oldestUnsyncedMillis,
      SyncAttempt lastAttempt) {
    this(
        bloomChecks,
        bloomMaybe,
        edgeDuplicates,
        bloomFalsePositives,
        deviceClockMillis,
        oldestUnsyncedMillis,
        lastAttempt,
        null,
        null);
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
        lastAttempt,
        reportSeq,
        null);
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
        lastAttempt,
        reportSeq,
        null);
  }

  /** An unsigned copy numbered {@code reportSeq}, ready to be signed. */
  public BatchMetadata numbered(long reportSeq) {
    return new BatchMetadata(
        bloomChecks,
        bloomMaybe,
        edgeDuplicates,
        bloomFalsePositives,
        deviceClockMillis,
        oldestUnsyncedMillis,
        lastAttempt,
        reportSeq,
        null);
  }

  /** A copy carrying {@code signature} over the report text (docs/sync.md, "Signed reports"). */
  public BatchMetadata signedWith(String signature) {
    return new BatchMetadata(
        bloomChecks,
        bloomMaybe,
        edgeDuplicates,
        bloomFalsePositives,
        deviceClockMillis,
        oldestUnsyncedMillis,
        lastAttempt,
        Checks.required("reportSeq", reportSeq),
        Checks.required("signature", signature));
  }

  /** True when the report carries a device signature (it may still not verify). */
  public boolean signed() {
    return signature != null;
  }

  /** True when the agent reported any queue state (agents before these members never do). */
  public boolean reportsQueue() {
    return oldestUnsyncedMillis != null || lastAttempt != null;
  }
}
