package dev.danmakuledger.server.storage;

/**
 * A batch commit hit a UNIQUE constraint of the room slots (docs/architecture.md §5): a key it
 * stores as new, a number it was handed, or a tombstone's number was taken in SQL meanwhile (by
 * another instance, the gap sealer, or because the Redis counter was behind SQL). Nothing of the
 * batch was written; the caller reads which keys and numbers are taken and commits again.
 */
public final class SlotTakenException extends Exception {
  public SlotTakenException(String message, Throwable cause) {
    super(message, cause);
  }
}
