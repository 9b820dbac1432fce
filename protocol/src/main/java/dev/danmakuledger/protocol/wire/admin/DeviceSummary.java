package dev.danmakuledger.protocol.wire.admin;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.protocol.wire.Checks;
import dev.danmakuledger.protocol.wire.WireEnums;

/**
 * One device as the console lists it.
 *
 * @param deviceId the device
 * @param status derived from what the device proved
 * @param verifiedSize the log size the server verified
 * @param claimedSize the largest size the device has claimed
 * @param rootHex the verified root, lowercase hex, or null
 * @param lastCheckpointAt ISO-8601 time of the last verified checkpoint, or null
 * @param lastReceiptAt ISO-8601 time of the last receipt, or null
 * @param clockSkewMs device clock minus server clock at the last batch, or null
 * @param pendingEstimate records the device holds that the server has not verified
 * @param lastSeenAt ISO-8601 time of the last request, or null
 * @param badSignatureAttempts checkpoints for this device that did not verify under its enrolled
 *     key (unauthenticated attempts, counted beside the status and never trusted); absent (0) in
 *     answers of older servers
 * @param queue the upload queue the device last reported, or null when it never reported one (an
 *     older agent, or an older server): unknown, never empty
 */
public record DeviceSummary(
    String deviceId,
    Status status,
    long verifiedSize,
    long claimedSize,
    String rootHex,
    String lastCheckpointAt,
    String lastReceiptAt,
    Long clockSkewMs,
    long pendingEstimate,
    String lastSeenAt,
    Long badSignatureAttempts,
    DeviceQueue queue) {
  /** Checks that required members are present and counts are not negative. */
  public DeviceSummary {
    badSignatureAttempts = badSignatureAttempts == null ? 0L : badSignatureAttempts;
    Checks.nonNegative("badSignatureAttempts", badSignatureAttempts);
    Checks.required("deviceId", deviceId);
    Checks.required("status", status);
    Checks.nonNegative("verifiedSize", verifiedSize);
    Checks.nonNegative("claimedSize", claimedSize);
    Checks.nonNegative("pendingEstimate", pendingEstimate);
  }

  /** A device's state as derived from what it proved (docs/console.md, "Devices"). */
  public enum Status {
    VERIFIED,
    BEHIND,
    OFFLINE,
    FORKED,
    /**
     * Sent only by servers older than the attempt count: a checkpoint that does not verify proves
     * nothing about the device, so it never changes the status.
     */
    BAD_SIGNATURE,
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

  /** A summary without a reported queue (as sent by servers that do not keep one). */
  public DeviceSummary(
      String deviceId,
      Status status,
      long verifiedSize,
      long claimedSize,
      String rootHex,
      String lastCheckpointAt,
      String lastReceiptAt,
      Long clockSkewMs,
      long pendingEstimate,
      String lastSeenAt,
      Long badSignatureAttempts) {
    this(
        deviceId,
        status,
        verifiedSize,
        claimedSize,
        rootHex,
        lastCheckpointAt,
        lastReceiptAt,
        clockSkewMs,
        pendingEstimate,
        lastSeenAt,
        badSignatureAttempts,
        null);
  }

  /** A summary without bad-signature attempts (as sent by servers that do not count them). */
  public DeviceSummary(
      String deviceId,
      Status status,
      long verifiedSize,
      long claimedSize,
      String rootHex,
      String lastCheckpointAt,
      String lastReceiptAt,
      Long clockSkewMs,
      long pendingEstimate,
      String lastSeenAt) {
    this(
        deviceId,
        status,
        verifiedSize,
        claimedSize,
        rootHex,
        lastCheckpointAt,
        lastReceiptAt,
        clockSkewMs,
        pendingEstimate,
        lastSeenAt,
        0L,
        null);
  }
}
