package dev.danmakuledger.protocol.wire;

/**
 * The server's view of one device log, {@code GET /v1/devices/{deviceId}/log}.
 *
 * @param deviceId the device
 * @param verifiedSize the size the server has verified
 * @param rootHex the verified root, lowercase hex, or null for an empty log
 * @param checkpoint the latest device-signed checkpoint note, or null
 * @param receipt the latest server receipt note, or null
 * @param status the device status, e.g. VERIFIED or QUARANTINED
 */
public record LogState(
    String deviceId,
    long verifiedSize,
    String rootHex,
    String checkpoint,
    String receipt,
    String status) {
  /** Checks that required members are present and counts are not negative. */
  public LogState {
    Checks.required("deviceId", deviceId);
    Checks.nonNegative("verifiedSize", verifiedSize);
    Checks.required("status", status);
  }
}
