package dev.danmakuledger.edge.store;

/**
 * The store has reached its configured size bound; new captures are refused and nothing already
 * captured is dropped to make room.
 */
public final class StoreFullException extends StoreException {
  private static final long serialVersionUID = 1L;
  private final long sizeBytes;
  private final long maxBytes;

  public StoreFullException(long sizeBytes, long maxBytes) {
    super(
        "store is full: "
            + sizeBytes
            + " bytes on disk, bound is "
            + maxBytes
            + " bytes; sync and prune, or raise max-store-bytes in agent.properties");
    this.sizeBytes = sizeBytes;
    this.maxBytes = maxBytes;
  }

  public long sizeBytes() {
    return sizeBytes;
  }

  public long maxBytes() {
    return maxBytes;
  }
}
