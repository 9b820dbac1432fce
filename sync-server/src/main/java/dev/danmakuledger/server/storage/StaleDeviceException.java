package dev.danmakuledger.server.storage;

/**
 * A batch commit lost a race for its device log: the device row changed since it was read
 * (optimistic lock), or the database chose this transaction as a deadlock victim. Nothing of the
 * batch was written; the batch may be retried from the start.
 */
public final class StaleDeviceException extends Exception {
  private final String deviceId;

  public StaleDeviceException(String deviceId, String message, Throwable cause) {
    super(message, cause);
    this.deviceId = deviceId;
  }

  public String deviceId() {
    return deviceId;
  }
}
