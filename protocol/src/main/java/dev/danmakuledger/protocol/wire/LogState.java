package dev.danmakuledger.protocol.wire;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The server's view of one device log, {@code GET /v1/devices/{deviceId}/log}.
 *
 * @param deviceId the device
 * @param verifiedSize the size the server has verified
 * @param rootHex the verified root, lowercase hex, or null for an empty log
 * @param checkpoint the latest device-signed checkpoint note, or null
 * @param receipt the latest server receipt note, or null
 * @param status whether the server accepts the device's batches
 */
public record LogState(
    String deviceId,
    long verifiedSize,
    String rootHex,
    String checkpoint,
    String receipt,
    Status status) {
  /** Checks that required members are present and counts are not negative. */
  public LogState {
    Checks.required("deviceId", deviceId);
    Checks.nonNegative("verifiedSize", verifiedSize);
    Checks.required("status", status);
  }

  /** Whether the server accepts a device's batches. */
  public enum Status {
    /** Batches are accepted. */
    VERIFIED,
    /** Every batch is refused (a fork was detected or an operator quarantined the device). */
    QUARANTINED,
    /** A status this build does not know, sent by a newer server. */
    UNKNOWN;

    /** The constant named {@code name}; {@link #UNKNOWN} for a name this build does not know. */
    public static Status fromWire(String name) {
      return WireEnums.named(Status.class, name, UNKNOWN);
    }

    @JsonCreator
    static Status fromJson(JsonNode value) {
      return WireEnums.fromJson(Status.class, value, UNKNOWN);
    }
  }
}
