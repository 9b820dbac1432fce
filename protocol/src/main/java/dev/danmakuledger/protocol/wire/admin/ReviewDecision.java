package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;

/**
 * Body of {@code POST /admin/review/{messageId}}: approve or reject a held message. The version is
 * the one read from the {@link ReviewItem}; a stale version is answered with 409 {@code
 * version-conflict}.
 *
 * @param decision {@value #APPROVE} or {@value #REJECT}
 * @param version the row version the operator saw
 * @param reason why, shown to auditors; may be null for an approval
 */
public record ReviewDecision(String decision, long version, String reason) {
  /** Approve: the message becomes CONFIRMED and is broadcast. */
  public static final String APPROVE = "APPROVE";

  /** Reject: the message becomes REJECTED and is never broadcast. */
  public static final String REJECT = "REJECT";

  /** Checks the decision and version. */
  public ReviewDecision {
    if (!APPROVE.equals(decision) && !REJECT.equals(decision)) {
      throw new IllegalArgumentException(
          "decision: got "
              + (decision == null ? "null" : '"' + decision + '"')
              + ", want APPROVE or REJECT");
    }
    Checks.nonNegative("version", version);
  }
}
