package dev.danmakuledger.protocol.wire;

/**
 * Reply to an enrollment: the log origin the device must sign and the key that signs receipts.
 *
 * @param deviceId the enrolled device
 * @param origin the checkpoint origin, {@code danmaku-ledger/device/<deviceId>}
 * @param serverVerifierKey the server's note verifier key ({@code name+hash+base64}) for receipts
 */
public record EnrollResponse(String deviceId, String origin, String serverVerifierKey) {
  /** Checks that required members are present and counts are not negative. */
  public EnrollResponse {
    Checks.required("deviceId", deviceId);
    Checks.required("origin", origin);
    Checks.required("serverVerifierKey", serverVerifierKey);
  }
}
