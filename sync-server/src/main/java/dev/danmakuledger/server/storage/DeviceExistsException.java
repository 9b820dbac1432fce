package dev.danmakuledger.server.storage;

/** Enrolment refused: the device id is already enrolled with another public key. */
public final class DeviceExistsException extends Exception {
  public DeviceExistsException(String deviceId) {
    super("device " + deviceId + " is already enrolled with another key");
  }
}
