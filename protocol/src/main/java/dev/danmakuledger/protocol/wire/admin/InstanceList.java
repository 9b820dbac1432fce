package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import java.util.List;

/**
 * Reply of {@code GET /admin/instances}: every sync-server instance that registered in Redis,
 * newest heartbeat first (docs/operations.md, "Several instances").
 *
 * @param instances the instances
 */
public record InstanceList(List<Instance> instances) {
  /** Checks that required members are present. */
  public InstanceList {
    instances = Checks.list("instances", instances);
  }

  /** Whether an instance's heartbeat is recent (three heartbeat intervals). */
  public enum Status {
    UP,
    DOWN
  }

  /**
   * One instance as its last heartbeat described it.
   *
   * @param id instance id (random per start)
   * @param address the base URI it serves on
   * @param version the server version
   * @param startedAt when it started (ISO-8601)
   * @param heartbeatAt its last heartbeat (ISO-8601)
   * @param status UP when the heartbeat is recent, else DOWN
   * @param batchesPerSecond batches stored per second over the last heartbeat interval
   * @param subscribers open room-stream subscribers
   */
  public record Instance(
      String id,
      String address,
      String version,
      String startedAt,
      String heartbeatAt,
      Status status,
      double batchesPerSecond,
      long subscribers) {
    /** Checks that required members are present and counts are not negative. */
    public Instance {
      Checks.required("id", id);
      Checks.required("address", address);
      Checks.required("version", version);
      Checks.required("startedAt", startedAt);
      Checks.required("heartbeatAt", heartbeatAt);
      Checks.required("status", status);
      Checks.nonNegative("subscribers", subscribers);
      if (!(batchesPerSecond >= 0)) {
        throw new IllegalArgumentException(
            "batchesPerSecond: got " + batchesPerSecond + ", want >= 0");
      }
    }
  }
}
