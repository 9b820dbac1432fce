package dev.danmakuledger.edge.store;

/** A signed tree head as stored: log size, C2SP signed note, creation time (unix ms). */
public record StoredCheckpoint(long size, String note, long createdAt) {
  public StoredCheckpoint {
    if (size < 0 || note == null) {
      throw new IllegalArgumentException(
          "checkpoint: got size " + size + ", want >= 0 with a note");
    }
  }
}
