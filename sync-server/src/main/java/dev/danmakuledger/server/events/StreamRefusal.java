package dev.danmakuledger.server.events;

/**
 * Which limit of {@link StreamLimits} refused a room stream: the instance's and the room's are
 * capacity (answered 503), the client address's a quota (answered 429); both with {@code
 * Retry-After}.
 */
public enum StreamRefusal {
  /** The instance holds {@link StreamLimits#perInstance()} subscribers. */
  INSTANCE,
  /** The room holds {@link StreamLimits#perRoom()} subscribers on this instance. */
  ROOM,
  /** The client address holds {@link StreamLimits#perAddress()} subscribers on this instance. */
  ADDRESS
}
