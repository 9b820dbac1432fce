package dev.danmakuledger.server.events;

import java.util.Objects;

/** A room stream refused at admission, before anything was opened or sent. */
public final class StreamRefusedException extends RuntimeException {
  private final StreamRefusal refusal;
  private final int limit;
  private final int retryAfterSeconds;

  StreamRefusedException(StreamRefusal refusal, int limit, int retryAfterSeconds) {
    super(
        switch (Objects.requireNonNull(refusal, "refusal")) {
          case INSTANCE -> "this instance serves " + limit + " room streams, its limit";
          case ROOM -> "this room has " + limit + " streams on this instance, its limit";
          case ADDRESS -> "this client address holds " + limit + " room streams, its limit";
        });
    this.refusal = refusal;
    this.limit = limit;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The limit that was reached. */
  public StreamRefusal refusal() {
    return refusal;
  }

  /** The value of that limit. */
  public int limit() {
    return limit;
  }

  /** Seconds the client should wait before it tries again. */
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
