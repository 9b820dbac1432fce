package dev.danmakuledger.edge.sync;

/**
 * The largest batch the server has not refused in this run (docs/sync.md, "Failures": a 413 halves
 * the batch, down to one record). Immutable: a refusal yields a new limit.
 *
 * @param records most records per batch
 */
record BatchLimit(int records) {
  /** No refusal yet: the settings alone decide. */
  static final BatchLimit NONE = new BatchLimit(Integer.MAX_VALUE);

  BatchLimit {
    if (records < 1) {
      throw new IllegalArgumentException("batch limit: got " + records + ", want >= 1");
    }
  }

  /** Records of the next batch when {@code backlog} records wait. */
  int batchFor(SyncSettings settings, long backlog) {
    return Math.min(records, settings.batchFor(backlog));
  }

  /**
   * The limit after the server refused a batch of {@code refused} records as too large: half of it.
   *
   * @throws IllegalArgumentException if {@code refused < 2}: a single record cannot be halved
   */
  static BatchLimit belowRefused(int refused) {
    if (refused < 2) {
      throw new IllegalArgumentException(
          "refused batch: got " + refused + " records, want >= 2 to halve");
    }
    return new BatchLimit(refused / 2);
  }
}
