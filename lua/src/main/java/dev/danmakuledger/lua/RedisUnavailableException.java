package dev.danmakuledger.lua;

import java.util.Objects;

/**
 * Redis could not run the call, after the retry policy gave up: connection lost or refused,
 * timeout, {@code BUSY}, {@code LOADING}, {@code CLUSTERDOWN}/{@code TRYAGAIN}/{@code MASTERDOWN}.
 */
public final class RedisUnavailableException extends LuaRedisException {

  /** Why Redis was unavailable. */
  public enum Reason {
    /** Connection refused, lost or closed. */
    CONNECTION,
    /** No reply within the client's command timeout. */
    TIMEOUT,
    /** Another script is running ({@code BUSY}). */
    BUSY,
    /** The server is loading its dataset ({@code LOADING}). */
    LOADING,
    /** The cluster cannot serve the slot now ({@code CLUSTERDOWN}, {@code TRYAGAIN}, ...). */
    CLUSTER,
    /** The calling thread was interrupted while waiting to retry. */
    INTERRUPTED
  }

  private final Reason reason;
  private final boolean ambiguous;
  private final int attempts;

  RedisUnavailableException(
      Reason reason, boolean ambiguous, int attempts, String message, Throwable cause) {
    super(message + " (" + reason + " after " + attempts + " attempt(s))", cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.ambiguous = ambiguous;
    this.attempts = attempts;
  }

  /** Why Redis was unavailable on the last attempt. */
  public Reason reason() {
    return reason;
  }

  /**
   * True when the last attempt may have run on the server (timeout or connection lost after the
   * command was sent). Every script is safe to re-run: see {@link Admission#isReplayOf}.
   */
  public boolean ambiguous() {
    return ambiguous;
  }

  /** How many attempts were made. */
  public int attempts() {
    return attempts;
  }
}
