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
 * @param signed true when the device signed the report (docs/sync.md, "Signed reports"); unsigned
 *     reports, of older agents, are shown as such and raise no alert
 * @param reportSeq the highest report number of the device's signed reports so far, or null (none
 *     signed yet): a signed report numbered no higher is a replay and is not stored
 * @param alertedAt server time of the device's last STUCK alert, or null (none yet): alerts are
 *     rate limited per device
 */
public record DeviceSyncState(
    String deviceId,
    Long oldestUnsyncedAt,
    Long queueAgeMs,
    Long lastAttemptAgeMs,
    String lastOutcome,
    long reportedAt,
    Long stuckSince,
    Long reportedAtSize,
    boolean signed,
    Long reportSeq,
    Long alertedAt) {
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
    if (reportSeq != null && reportSeq < 0) {
      throw new IllegalArgumentException("reportSeq: got " + reportSeq + ", want >= 0");
    }
    if (signed && reportSeq == null) {
      throw new IllegalArgumentException(
          "reportSeq: got null for a signed report, want its number");
    }
  }

  /** An unsigned report (of an agent that does not sign its reports). */
  public DeviceSyncState(
      String deviceId,
      Long oldestUnsyncedAt,
      Long queueAgeMs,
      Long lastAttemptAgeMs,
      String lastOutcome,
      long reportedAt,
      Long stuckSince,
      Long reportedAtSize) {
    this(
        deviceId,
        oldestUnsyncedAt,
        queueAgeMs,
        lastAttemptAgeMs,
        lastOutcome,
        reportedAt,
        stuckSince,
        reportedAtSize,
        false,
        null,
        null);
  }

  /** A copy signed by the device as report number {@code reportSeq}. */
  public DeviceSyncState signedAs(long reportSeq) {
    return new DeviceSyncState(
        deviceId,
        oldestUnsyncedAt,
        queueAgeMs,
        lastAttemptAgeMs,
        lastOutcome,
        reportedAt,
        stuckSince,
        reportedAtSize,
        true,
        reportSeq,
        alertedAt);
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

  /**
   * A copy in (or, with null, out of) a STUCK episode, with the device's highest report number and
   * last alert time.
   */
  DeviceSyncState withEpisode(Long since, Long reportSeq, Long alertedAt) {
    return new DeviceSyncState(
        deviceId,
        oldestUnsyncedAt,
        queueAgeMs,
        lastAttemptAgeMs,
        lastOutcome,
        reportedAt,
        since,
        reportedAtSize,
        signed,
        reportSeq,
        alertedAt);
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
