package dev.danmakuledger.bench.tamper;

/**
 * What one attack met.
 *
 * @param attack the attack
 * @param agentApplicable false when the tampered copy is an internally consistent log that only the
 *     witness can tell from the real device (a clone, a restored backup)
 * @param agentCaught true if the agent's {@code verify} reported a problem
 * @param agent what verify said
 * @param serverCaught true if the server refused the tampered log
 * @param server the server's refusal code(s), or "accepted"
 * @param nothingStored true if no record of the tampered copy reached the server's store
 * @param detail the server's detail, or what was found stored
 */
public record AttackResult(
    String attack,
    boolean agentApplicable,
    boolean agentCaught,
    String agent,
    boolean serverCaught,
    String server,
    boolean nothingStored,
    String detail) {

  /** Caught by every detector that can see this attack, and nothing stored. */
  public boolean passed() {
    return (!agentApplicable || agentCaught) && serverCaught && nothingStored;
  }
}
