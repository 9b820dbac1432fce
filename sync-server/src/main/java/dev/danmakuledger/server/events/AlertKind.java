package dev.danmakuledger.server.events;

/** What an alert is about; the {@code data.kind} of an {@code ALERT} event, stored by name. */
public enum AlertKind {
  /** A device's log diverged from what the server verified: the device is quarantined. */
  FORK,
  /** A batch's records do not give the root of its signed checkpoint. */
  BAD_PROOF,
  /** Checkpoints that did not verify under the enrolled key (unauthenticated, counted). */
  BAD_SIGNATURE,
  /**
   * A device keeps syncing while its oldest unsynced capture does not move and is older than the
   * threshold (docs/sync-server.md, "Stuck devices"); once per episode.
   */
  STUCK,
  /**
   * A stored row does not decode (a device bundle or a room tile changed or cut outside the
   * server); once per row and instance.
   */
  DAMAGED_ROW,
  /**
   * The Kafka relay cannot reach its brokers (docs/kafka.md, "Failures"); once per episode and
   * instance. The ledger keeps accepting; the relay catches up once it can.
   */
  KAFKA_UNREACHABLE
}
