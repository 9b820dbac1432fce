package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;

/**
 * The Kafka relay's lag over all its shards, as the console shows it above the rooms
 * (docs/kafka.md, "Lag").
 *
 * @param topic the topic the relay publishes to
 * @param shards the relay's shards
 * @param reporting shards whose owner reported within the lease time; the others have no running
 *     owner (their lag is unknown and not in the sums)
 * @param reachable false when an owner that reported cannot reach Kafka
 * @param behind confirmed messages not yet in the topic, over the reporting shards
 * @param lagMaxMillis the longest time a room of a reporting shard has been behind
 */
public record RelayLag(
    String topic, int shards, int reporting, boolean reachable, long behind, long lagMaxMillis) {
  /** Checks that required members are present and counts are not negative. */
  public RelayLag {
    Checks.required("topic", topic);
    Checks.nonNegative("shards", shards);
    Checks.nonNegative("reporting", reporting);
    Checks.nonNegative("behind", behind);
    Checks.nonNegative("lagMaxMillis", lagMaxMillis);
    if (reporting > shards) {
      throw new IllegalArgumentException(
          "reporting: got " + reporting + ", want at most shards (" + shards + ")");
    }
  }
}
