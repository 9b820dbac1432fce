package dev.danmakuledger.protocol.wire;

import java.util.List;

/**
 * Reply to an accepted batch: one outcome per record and the server's receipt (docs/architecture.md
 * §4).
 *
 * @param deviceId the device
 * @param verifiedSize the device log size the server has now verified
 * @param rootHex the verified root, lowercase hex, or null for an empty log
 * @param outcomes one outcome per record of the batch, in log order
 * @param receipt the checkpoint note cosigned by the server, or null for an empty log
 */
public record BatchResponse(
    String deviceId,
    long verifiedSize,
    String rootHex,
    List<RecordOutcome> outcomes,
    String receipt) {
  /** Checks that required members are present and counts are not negative. */
  public BatchResponse {
    Checks.required("deviceId", deviceId);
    Checks.nonNegative("verifiedSize", verifiedSize);
    outcomes = Checks.list("outcomes", outcomes);
  }
}
