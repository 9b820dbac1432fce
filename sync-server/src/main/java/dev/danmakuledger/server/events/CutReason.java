package dev.danmakuledger.server.events;

/** Why a room stream ends with a resume point (the {@code reason} of its final event). */
public enum CutReason {
  /** More messages waited for the subscriber than its buffer holds. */
  TOO_SLOW("too-slow"),
  /** The catch-up could not read SQL; reconnect later. */
  STORAGE_UNAVAILABLE("storage-unavailable"),
  /** The server is stopping. */
  SHUTDOWN("shutdown");

  private final String wire;

  CutReason(String wire) {
    this.wire = wire;
  }

  /** The name in the final event. */
  public String wire() {
    return wire;
  }
}
