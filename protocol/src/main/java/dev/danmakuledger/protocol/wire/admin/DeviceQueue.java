package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import dev.danmakuledger.protocol.wire.SyncAttempt;

/**
 * A device's upload queue as it last reported it with an authenticated batch (docs/sync-server.md,
 * "Stuck devices"). Ages are as of the answer: the age at the report plus the time since, since a
 * queue can only drain by contacting the server.
 *
 * @param oldestUnsyncedAgeMs age of the device's oldest capture without an outcome, or null when
 *     its queue was empty
 * @param lastAttemptAgeMs time since its last sync attempt ended, or null when it reported none
 * @param lastAttemptOutcome how that attempt ended ({@code ok}, an error code, {@code
 *     transport-<kind>}), or null
 * @param stuck true while a STUCK episode is open
 * @param reportedAt ISO-8601 server time of the report
 * @param signed true when the device signed the report, false for an unsigned report of an older
 *     agent (shown as such; it raises no alert), null in answers of servers older than signed
 *     reports (docs/sync.md, "Signed reports")
 */
public record DeviceQueue(
    Long oldestUnsyncedAgeMs,
    Long lastAttemptAgeMs,
    String lastAttemptOutcome,
    boolean stuck,
    String reportedAt,
    Boolean signed) {
  /** Checks that ages are not negative, the outcome is a bounded token and the time is present. */
  public DeviceQueue {
    if (oldestUnsyncedAgeMs != null) {
      Checks.nonNegative("oldestUnsyncedAgeMs", oldestUnsyncedAgeMs);
    }
    if (lastAttemptAgeMs != null) {
      Checks.nonNegative("lastAttemptAgeMs", lastAttemptAgeMs);
    }
    if (lastAttemptOutcome != null) {
      new SyncAttempt(0, lastAttemptOutcome); // the same token rules as on the way in
    }
    Checks.required("reportedAt", reportedAt);
  }

  /** A queue as servers older than signed reports send it: whether it was signed is unknown. */
  public DeviceQueue(
      Long oldestUnsyncedAgeMs,
      Long lastAttemptAgeMs,
      String lastAttemptOutcome,
      boolean stuck,
      String reportedAt) {
    this(oldestUnsyncedAgeMs, lastAttemptAgeMs, lastAttemptOutcome, stuck, reportedAt, null);
  }

  /** True only for a report the server says the device did not sign. */
  public boolean unsigned() {
    return Boolean.FALSE.equals(signed);
  }
}
