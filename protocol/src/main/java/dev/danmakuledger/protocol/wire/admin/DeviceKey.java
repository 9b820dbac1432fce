package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;

/**
 * Reply of {@code GET /admin/devices/{id}/key}: the enrolled verifier key of a device.
 *
 * @param deviceId the device
 * @param verifierKey the note verifier key, {@code name+hash+base64}
 */
public record DeviceKey(String deviceId, String verifierKey) {
  /** Checks that required members are present and counts are not negative. */
  public DeviceKey {
    Checks.required("deviceId", deviceId);
    Checks.required("verifierKey", verifierKey);
  }
}
