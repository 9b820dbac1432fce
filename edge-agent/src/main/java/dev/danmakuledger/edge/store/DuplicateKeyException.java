package dev.danmakuledger.edge.store;

/**
 * An append hit the UNIQUE index on the idempotency key: the key was captured before although the
 * caller believed it new. The transaction was rolled back; nothing of the batch was written.
 */
public final class DuplicateKeyException extends StoreException {
  private static final long serialVersionUID = 1L;
  private final String idempotencyKey;

  public DuplicateKeyException(String idempotencyKey, Throwable cause) {
    super("idempotency key " + idempotencyKey + " is already in the store", cause);
    this.idempotencyKey = idempotencyKey;
  }

  public String idempotencyKey() {
    return idempotencyKey;
  }
}
