package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import java.util.List;

/**
 * Reply of {@code GET /admin/rooms}.
 *
 * @param rooms the rooms
 * @param relay the Kafka relay's lag over all rooms (docs/kafka.md, "Lag"), or null without a relay
 */
public record RoomList(List<RoomSummary> rooms, RelayLag relay) {
  /** Checks that required members are present and counts are not negative. */
  public RoomList {
    rooms = Checks.list("rooms", rooms);
  }

  /** Rooms without a Kafka relay. */
  public RoomList(List<RoomSummary> rooms) {
    this(rooms, null);
  }
}
