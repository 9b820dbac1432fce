package dev.danmakuledger.edge.store;

import java.io.IOException;

/** The store could not be read or written (SQLite error, unreadable or corrupt file). */
public class StoreException extends IOException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }
}
