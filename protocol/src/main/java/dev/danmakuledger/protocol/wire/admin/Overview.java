package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import java.util.Map;

/**
 * System-wide counters for the operator console, {@code GET /admin/overview}.
 *
 * @param batches batches accepted
 * @param outcomes record outcomes by {@code Outcome} name
 * @param duplicates duplicates caught per layer
 * @param conflicts idempotency conflicts
 * @param forks forks detected
 * @param signatureFailures checkpoints whose signature failed
 * @param rejectsByReason rejected records by reason
 * @param alerts alerts raised
 * @param devices enrolled devices
 * @param rooms rooms with messages
 * @param recordsPerSecond recent ingest rate
 * @param serverTime the server clock, ISO-8601
 */
public record Overview(
    long batches,
    Map<String, Long> outcomes,
    DuplicateLayers duplicates,
    long conflicts,
    long forks,
    long signatureFailures,
    Map<String, Long> rejectsByReason,
    long alerts,
    long devices,
    long rooms,
    double recordsPerSecond,
    String serverTime) {
  /** Checks that required members are present and counts are not negative. */
  public Overview {
    Checks.nonNegative("batches", batches);
    outcomes = Checks.map("outcomes", outcomes);
    Checks.required("duplicates", duplicates);
    Checks.nonNegative("conflicts", conflicts);
    Checks.nonNegative("forks", forks);
    Checks.nonNegative("signatureFailures", signatureFailures);
    rejectsByReason = Checks.map("rejectsByReason", rejectsByReason);
    Checks.nonNegative("alerts", alerts);
    Checks.nonNegative("devices", devices);
    Checks.nonNegative("rooms", rooms);
    Checks.required("serverTime", serverTime);
  }
}
