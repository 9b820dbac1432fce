package dev.danmakuledger.protocol.wire;

/**
 * Body of {@code POST /v1/devices}: a device asks to enroll its Ed25519 key (docs/architecture.md
 * §4).
 *
 * @param deviceId the device id, {@code [A-Za-z0-9_-]{1,64}}
 * @param publicKey base64 of the 32-byte Ed25519 public key
 * @param enrollToken the operator-issued enrollment token, or null where enrollment is open
 */
public record EnrollRequest(String deviceId, String publicKey, String enrollToken) {
  /** Checks that required members are present and counts are not negative. */
  public EnrollRequest {
    Checks.required("deviceId", deviceId);
    Checks.required("publicKey", publicKey);
  }
}
