package dev.danmakuledger.merkle.proof;

import dev.danmakuledger.merkle.VerificationException;

/**
 * A proof or its parameters are malformed: wrong number of hashes, a hash of the wrong length, an
 * index or size out of range.
 */
public final class InvalidProofException extends VerificationException {
  private static final long serialVersionUID = 1L;

  public InvalidProofException(String message) {
    super(message);
  }
}
