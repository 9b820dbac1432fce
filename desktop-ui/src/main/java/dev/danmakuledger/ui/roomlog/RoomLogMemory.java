package dev.danmakuledger.ui.roomlog;

import java.util.Map;

/**
 * What the console remembers of every room log in its history between runs: the last verified
 * checkpoint per room and every split view detected, so a restart neither forgets an alert nor
 * accepts a checkpoint that contradicts one verified before.
 */
public record RoomLogMemory(Map<String, RoomTrust> trusted, Map<String, SplitView> splits) {
  public RoomLogMemory {
    trusted = trusted == null ? Map.of() : Map.copyOf(trusted);
    splits = splits == null ? Map.of() : Map.copyOf(splits);
  }

  static RoomLogMemory empty() {
    return new RoomLogMemory(Map.of(), Map.of());
  }
}
