package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;

/**
 * One device as the console lists it.
 *
 * @param deviceId the device
 * @param status VERIFIED, BEHIND, OFFLINE, FORKED, BAD_SIGNATURE or QUARANTINED
 * @param verifiedSize the log size the server verified
 * @param claimedSize the largest size the device has claimed
 * @param rootHex the verified root, lowercase hex, or null
 * @param lastCheckpointAt ISO-8601 time of the last verified checkpoint, or null
 * @param lastReceiptAt ISO-8601 time of the last receipt, or null
 * @param clockSkewMs device clock minus server clock at the last batch, or null
 * @param pendingEstimate records the device holds that the server has not verified
 * @param lastSeenAt ISO-8601 time of the last request, or null
 */
public record DeviceSummary(
    String deviceId,
    String status,
    long verifiedSize,
    long claimedSize,
    String rootHex,
    String lastCheckpointAt,
    String lastReceiptAt,
    Long clockSkewMs,
    long pendingEstimate,
    String lastSeenAt) {
  /** Checks that required members are present and counts are not negative. */
  public DeviceSummary {
    Checks.required("deviceId", deviceId);
    Checks.required("status", status);
    Checks.nonNegative("verifiedSize", verifiedSize);
    Checks.nonNegative("claimedSize", claimedSize);
    Checks.nonNegative("pendingEstimate", pendingEstimate);
  }
}
