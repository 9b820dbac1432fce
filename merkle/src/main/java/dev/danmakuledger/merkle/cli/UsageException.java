package dev.danmakuledger.merkle.cli;

/** Bad command-line usage or unreadable input; {@code tlog} exits with status 2. */
final class UsageException extends Exception {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }

  UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
