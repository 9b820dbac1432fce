package dev.danmakuledger.server.storage;

/** The SQL database cannot be reached or refused the statement for a transient reason. */
public final class StorageUnavailableException extends RuntimeException {
  public StorageUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
