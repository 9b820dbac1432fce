package dev.danmakuledger.edge.store;

/** The server's answer for one record, stored by the sync client. */
public record OutcomeUpdate(
    long index, String outcome, Long seq, String messageId, String reason, long syncedAt) {
  public OutcomeUpdate {
    if (index < 0 || outcome == null) {
      throw new IllegalArgumentException(
          "outcome update: got index " + index + ", outcome " + outcome);
    }
  }
}
