package dev.danmakuledger.protocol.key;

/**
 * An idempotency key that does not have the form {@code deviceId:userId:unixMillis:nonce}
 * (docs/architecture.md §3). {@link #part()} names the offending part so that an HTTP error or a
 * CLI message can point at it.
 */
public final class MalformedKeyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String part;

  MalformedKeyException(String part, String message) {
    super(message);
    this.part = part;
  }

  /**
   * Returns the bad part: {@code "deviceId"}, {@code "userId"}, {@code "unixMillis"}, {@code
   * "nonce"} or {@code "format"} (null, oversized, wrong number of parts).
   */
  public String part() {
    return part;
  }
}
