package dev.danmakuledger.server.storage;

/**
 * The upload queue state a device last reported with an authenticated batch (docs/sync-server.md,
 * "Stuck devices").
 *
 * @param deviceId the device
 * @param oldestUnsyncedAt device-clock capture time of its oldest record without an outcome, or
 *     null (its queue was empty)
 * @param queueAgeMs how old that record was when the batch was sent, or null
 * @param lastAttemptAgeMs how long before sending its previous sync attempt ended, or null (none
 *     reported)
 * @param lastOutcome how that attempt ended ({@code ok}, an error code, {@code transport-<kind>}),
 *     or null
 * @param reportedAt server time of the report
 * @param stuckSince server time the current STUCK episode began, or null outside one
 * @param reportedAtSize the device log size the reporting batch started at, i.e. the index of the
 *     oldest record the device had not synced then; null when not known (older rows)
 */
public record DeviceSyncState(
    String deviceId,
    Long oldestUnsyncedAt,
    Long queueAgeMs,
    Long lastAttemptAgeMs,
    String lastOutcome,
    long reportedAt,
    Long stuckSince,
    Long reportedAtSize) {
  /** Longest stored outcome token (the wire's bound). */
  public static final int MAX_OUTCOME = 48;

  public DeviceSyncState {
    if (deviceId == null) {
      throw new IllegalArgumentException("deviceId: got null, want a device");
    }
    if (queueAgeMs != null && queueAgeMs < 0) {
      throw new IllegalArgumentException("queueAgeMs: got " + queueAgeMs + ", want >= 0");
    }
    if (lastAttemptAgeMs != null && lastAttemptAgeMs < 0) {
      throw new IllegalArgumentException(
          "lastAttemptAgeMs: got " + lastAttemptAgeMs + ", want >= 0");
    }
    if (reportedAtSize != null && reportedAtSize < 0) {
      throw new IllegalArgumentException("reportedAtSize: got " + reportedAtSize + ", want >= 0");
    }
    if (lastOutcome != null && lastOutcome.length() > MAX_OUTCOME) {
      throw new IllegalArgumentException(
          "lastOutcome: got " + lastOutcome.length() + " characters, want <= " + MAX_OUTCOME);
    }
  }

  /**
   * The oldest unsynced capture's age at {@code now} (server time), or null when none; saturates at
   * {@link Long#MAX_VALUE} rather than overflow.
   */
  public Long queueAgeAt(long now) {
    return queueAgeMs == null ? null : agedTo(queueAgeMs, now);
  }

  /**
   * The last attempt's age at {@code now} (server time), or null when none was reported; saturates
   * like {@link #queueAgeAt}.
   */
  public Long lastAttemptAgeAt(long now) {
    return lastAttemptAgeMs == null ? null : agedTo(lastAttemptAgeMs, now);
  }

  private long agedTo(long ageAtReport, long now) {
    long since = Math.max(0, now - reportedAt);
    return ageAtReport > Long.MAX_VALUE - since ? Long.MAX_VALUE : ageAtReport + since;
  }

  /** True while a STUCK episode is open. */
  public boolean stuck() {
    return stuckSince != null;
  }

  /** A copy in (or, with null, out of) a STUCK episode. */
  DeviceSyncState withStuckSince(Long since) {
    return new DeviceSyncState(
        deviceId,
        oldestUnsyncedAt,
        queueAgeMs,
        lastAttemptAgeMs,
        lastOutcome,
        reportedAt,
        since,
        reportedAtSize);
  }

  /**
   * True when the record that was oldest at the report has since been delivered: the device's
   * verified size passed the size the report was sent at. The reported age then no longer describes
   * the queue (the device sends no new report while it has nothing to sync).
   */
  public boolean deliveredBy(long verifiedSize) {
    return reportedAtSize != null && verifiedSize > reportedAtSize;
  }
}
