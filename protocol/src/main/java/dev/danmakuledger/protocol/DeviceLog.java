package dev.danmakuledger.protocol;

import dev.danmakuledger.protocol.key.IdempotencyKey;

/**
 * Names of a device's append-only log (docs/architecture.md §3): the checkpoint origin line that
 * every signed tree head of the device carries (C2SP tlog-checkpoint, first line).
 */
public final class DeviceLog {
  /** Prefix of every device log origin. */
  public static final String ORIGIN_PREFIX = "danmaku-ledger/device/";

  private DeviceLog() {}

  /**
   * Returns the checkpoint origin of a device's log.
   *
   * @param deviceId a device id, {@code [A-Za-z0-9_-]{1,64}}
   * @throws IllegalArgumentException if the device id is malformed
   */
  public static String origin(String deviceId) {
    if (!IdempotencyKey.isValidId(deviceId)) {
      throw new IllegalArgumentException(
          "device id: got " + Quote.of(deviceId) + ", want [A-Za-z0-9_-]{1,64}");
    }
    return ORIGIN_PREFIX + deviceId;
  }
}
