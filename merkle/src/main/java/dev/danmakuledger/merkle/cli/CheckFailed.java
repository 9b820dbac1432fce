package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.VerificationException;

/** One named check of an audit did not hold; {@code tlog} exits with status 1. */
final class CheckFailed extends VerificationException {
  private static final long serialVersionUID = 1L;

  CheckFailed(String check, String why) {
    super(check + ": " + why);
  }
}
