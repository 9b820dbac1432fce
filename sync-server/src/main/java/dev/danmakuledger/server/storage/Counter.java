package dev.danmakuledger.server.storage;

import dev.danmakuledger.protocol.wire.Outcome;

/**
 * The cluster-wide counters kept in the {@code counters} table (docs/architecture.md §5: dedupe
 * hits per layer, outcomes, rejects by reason), with the name each is stored under. Outcome and
 * reject counters are families: one stored name per outcome or reason, built by {@link #outcomeKey}
 * and {@link #rejectKey}.
 */
public enum Counter {
  BATCHES("batches"),
  RECORDS("records"),
  DUPLICATES_REDIS("duplicates:redis"),
  DUPLICATES_SQL("duplicates:sql"),
  CONFLICTS("conflicts"),
  FORKS("forks"),
  SIGNATURE_FAILURES("signature-failures"),
  TOMBSTONES("tombstones"),
  /** Numbers of a room sealed by the gap sealer (also counted in {@link #TOMBSTONES}). */
  SEALED_GAPS("sealed-gaps"),
  /** Room numbers that collided in SQL and were handed out again. */
  RENUMBERED("renumbered"),
  /** Keys Redis remembered without an SQL row, stored as new. */
  ORPHANS("orphans"),
  REPLAYS("replays"),
  BAD_PROOFS("bad-proofs"),
  /** STUCK episodes opened: devices whose upload queue stopped draining (docs/sync-server.md). */
  STUCK_EPISODES("stuck-episodes"),
  /**
   * Device reports carrying a signature that did not verify (docs/sync.md, "Signed reports"):
   * unauthenticated, counted and not stored.
   */
  UNVERIFIED_REPORTS("unverified-reports");

  /** Prefix of the per-outcome counters. */
  public static final String OUTCOME_PREFIX = "outcome:";

  /** Prefix of the per-reason reject counters. */
  public static final String REJECT_PREFIX = "reject:";

  private final String key;

  Counter(String key) {
    this.key = key;
  }

  /** The name the counter is stored under. */
  public String key() {
    return key;
  }

  /** The stored name of the counter of records that got {@code outcome}. */
  public static String outcomeKey(Outcome outcome) {
    return OUTCOME_PREFIX + outcome.name();
  }

  /** The stored name of the counter of records rejected for {@code reason}. */
  public static String rejectKey(String reason) {
    return REJECT_PREFIX + reason;
  }
}
