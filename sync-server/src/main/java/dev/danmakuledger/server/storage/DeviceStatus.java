package dev.danmakuledger.server.storage;

/** Whether the server accepts batches from a device. */
public enum DeviceStatus {
  /** Batches are accepted. */
  ACTIVE,
  /** Every batch is refused (a fork was detected or an operator quarantined it). */
  QUARANTINED
}
