package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;

/**
 * Duplicates caught by each of the three checks (docs/architecture.md §5).
 *
 * @param edge edge-reported: Bloom "maybe" confirmed by the exact lookup
 * @param redis caught by the Redis admission script
 * @param sql caught only by the database unique constraint
 */
public record DuplicateLayers(long edge, long redis, long sql) {
  /** Checks that required members are present and counts are not negative. */
  public DuplicateLayers {
    Checks.nonNegative("edge", edge);
    Checks.nonNegative("redis", redis);
    Checks.nonNegative("sql", sql);
  }
}
