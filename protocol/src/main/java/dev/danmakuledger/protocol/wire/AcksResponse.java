package dev.danmakuledger.protocol.wire;

import java.util.List;

/**
 * Stored outcomes for indices {@code [from, to)} of a device log, fetched by an agent that lost a
 * batch reply.
 *
 * @param deviceId the device
 * @param from first index, inclusive
 * @param to last index, exclusive
 * @param outcomes the outcomes in log order
 */
public record AcksResponse(String deviceId, long from, long to, List<RecordOutcome> outcomes) {
  /** Checks that required members are present and counts are not negative. */
  public AcksResponse {
    Checks.required("deviceId", deviceId);
    Checks.nonNegative("from", from);
    Checks.nonNegative("to", to);
    outcomes = Checks.list("outcomes", outcomes);
  }
}
