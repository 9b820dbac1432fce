package dev.danmakuledger.server.storage;

/** A compare-and-set on a message lost: the row is no longer at the expected version/status. */
public final class VersionConflictException extends Exception {
  private final transient MessageRow current;

  public VersionConflictException(MessageRow current, long expectedVersion) {
    super(
        "message "
            + current.messageId()
            + ": got version "
            + current.version()
            + " status "
            + current.status()
            + ", want version "
            + expectedVersion
            + " status PENDING");
    this.current = current;
  }

  /** The row as it is now. */
  public MessageRow current() {
    return current;
  }
}
