package dev.danmakuledger.ui.history;

/** The local history file could not be read or written. */
public final class HistoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  HistoryException(String message, Throwable cause) {
    super(message, cause);
  }
}
