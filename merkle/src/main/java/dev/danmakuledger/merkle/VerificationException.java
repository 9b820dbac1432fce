package dev.danmakuledger.merkle;

/**
 * Base of every verification failure in this module: a proof, a root or a signed note did not check
 * out. Callers that only need "valid or not" catch this type.
 */
public abstract class VerificationException extends Exception {
  private static final long serialVersionUID = 1L;

  protected VerificationException(String message) {
    super(message);
  }
}
