package dev.danmakuledger.server.kafka;

import java.util.Objects;

/**
 * How far the relay is behind SQL in one room (docs/kafka.md, "Lag").
 *
 * @param room the room
 * @param shard the relay shard that owns it
 * @param records confirmation cursors in SQL past the relay's committed position
 * @param millis how long the relay has seen the room behind, 0 when it is not
 */
public record RoomLag(String room, int shard, long records, long millis) {
  public RoomLag {
    Objects.requireNonNull(room, "room");
    if (shard < 0 || records < 0 || millis < 0) {
      throw new IllegalArgumentException(
          "shard, records, millis: got " + shard + ", " + records + ", " + millis + ", want >= 0");
    }
  }
}
