package dev.danmakuledger.edge.store;

/**
 * SQLite {@code synchronous} mode in WAL: {@code FULL} fsyncs the log on every commit (an ack
 * survives power loss); {@code NORMAL} survives a process crash but may lose the newest commits on
 * power loss.
 */
public enum Durability {
  FULL,
  NORMAL
}
