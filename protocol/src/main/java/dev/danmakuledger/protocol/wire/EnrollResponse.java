package dev.danmakuledger.protocol.wire;

/**
 * Reply to an enrollment: the log origin the device must sign and the key that signs receipts.
 *
 * @param deviceId the enrolled device
 * @param origin the checkpoint origin, {@code danmaku-ledger/device/<deviceId>}
 * @param serverVerifierKey the server's first note verifier key (type 0x01, {@code
 *     name+hash+base64}); receipts issued before cosigned receipts carry only its signature
 * @param cosignerVerifierKey the server's C2SP tlog-cosignature verifier key (type 0x04), whose
 *     {@code cosignature/v1} line every receipt carries; null from servers that predate it
 */
public record EnrollResponse(
    String deviceId, String origin, String serverVerifierKey, String cosignerVerifierKey) {
  /** Checks that required members are present and counts are not negative. */
  public EnrollResponse {
    Checks.required("deviceId", deviceId);
    Checks.required("origin", origin);
    Checks.required("serverVerifierKey", serverVerifierKey);
  }

  /** A reply without a cosigner key, as servers before cosigned receipts sent it. */
  public EnrollResponse(String deviceId, String origin, String serverVerifierKey) {
    this(deviceId, origin, serverVerifierKey, null);
  }
}
