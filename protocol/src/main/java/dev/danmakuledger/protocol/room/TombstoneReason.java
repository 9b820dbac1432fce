package dev.danmakuledger.protocol.room;

import java.util.Optional;

/** The tombstone reason codes the sync server writes (docs/architecture.md §5 and §10). */
public enum TombstoneReason {
  /** A duplicate that only the database's UNIQUE(idempotency_key) caught burned the number. */
  DUPLICATE_CAUGHT_BY_SQL("duplicate-caught-by-sql"),
  /**
   * A number Redis handed out to a batch that never committed, sealed when the counter reseeded.
   */
  LOST_BY_REDIS("lost-by-redis");

  private final String code;

  TombstoneReason(String code) {
    this.code = code;
  }

  /** Returns the code written in the entry. */
  public String code() {
    return code;
  }

  /** Returns the known reason with {@code code}, if any. */
  public static Optional<TombstoneReason> fromCode(String code) {
    for (TombstoneReason r : values()) {
      if (r.code.equals(code)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
