package dev.danmakuledger.server.storage;

/** Names of the cluster-wide counters kept in the {@code counters} table. */
public final class Counters {
  public static final String BATCHES = "batches";
  public static final String RECORDS = "records";
  public static final String OUTCOME_PREFIX = "outcome:";
  public static final String REJECT_PREFIX = "reject:";
  public static final String DUPLICATES_REDIS = "duplicates:redis";
  public static final String DUPLICATES_SQL = "duplicates:sql";
  public static final String CONFLICTS = "conflicts";
  public static final String FORKS = "forks";
  public static final String SIGNATURE_FAILURES = "signature-failures";
  public static final String TOMBSTONES = "tombstones";
  public static final String REPLAYS = "replays";
  public static final String BAD_PROOFS = "bad-proofs";

  private Counters() {}
}
