package dev.danmakuledger.lua;

import java.util.Objects;

/**
 * The room counter is missing in Redis (restart, eviction, failover): the admit assigned nothing.
 * Seed it from the database's high-water mark with {@link DedupeScripts#seed} and admit again
 * (docs/architecture.md §5).
 */
public final class NeedSeedException extends Exception {
  private final String room;

  public NeedSeedException(String room) {
    super("room counter missing for room " + Objects.requireNonNull(room, "room") + ", seed it");
    this.room = room;
  }

  /** The room whose counter is missing. */
  public String room() {
    return room;
  }
}
