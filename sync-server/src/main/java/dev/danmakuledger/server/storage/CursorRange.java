package dev.danmakuledger.server.storage;

import java.util.List;

/**
 * The confirmation cursors one transaction gave the messages of one room: {@code first..last},
 * contiguous, because the room's cursor row stays locked until the transaction ends
 * (docs/sync-server.md, "Room streams").
 */
public record CursorRange(long first, long last) {
  public CursorRange {
    if (first < 1 || last < first) {
      throw new IllegalArgumentException(
          "cursors: got " + first + ".." + last + ", want 1 <= first <= last");
    }
  }

  /** The range of {@code messages}, which are in cursor order and not empty. */
  public static CursorRange of(List<ConfirmedFeed.Confirmed> messages) {
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("cursors: got no messages, want at least one");
    }
    return new CursorRange(messages.get(0).cursor(), messages.get(messages.size() - 1).cursor());
  }

  /** The smallest range holding both. */
  public CursorRange span(CursorRange other) {
    return new CursorRange(Math.min(first, other.first), Math.max(last, other.last));
  }
}
