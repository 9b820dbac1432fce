package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import java.util.List;

/**
 * Reply of {@code GET /admin/rooms}.
 *
 * @param rooms the rooms
 */
public record RoomList(List<RoomSummary> rooms) {
  /** Checks that required members are present and counts are not negative. */
  public RoomList {
    rooms = Checks.list("rooms", rooms);
  }
}
