package dev.danmakuledger.server.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

final class RelayLagTest {
  @Test
  void aRoomIsBehindFromTheFirstTimeTheRelaySawItBehindUntilItCaughtUp() {
    RelayLag lag = new RelayLag();
    lag.saw("r", 0, 10, 4, 1_000);
    assertEquals(List.of(new RoomLag("r", 0, 6, 0)), lag.top(10));
    lag.saw("r", 0, 12, 8, 1_250);
    assertEquals(List.of(new RoomLag("r", 0, 4, 250)), lag.top(10));
    lag.saw("r", 0, 12, 12, 1_300);
    assertEquals(List.of(new RoomLag("r", 0, 0, 0)), lag.top(10));
    lag.saw("r", 0, 13, 12, 2_000);
    assertEquals(0, lag.maxMillis(), "a new episode starts at zero");
    assertEquals(1, lag.totalRecords());
  }

  @Test
  void theTopIsMostBehindFirstAndForgettingAShardDropsItsRooms() {
    RelayLag lag = new RelayLag();
    lag.saw("a", 0, 5, 4, 0);
    lag.saw("b", 1, 50, 0, 0);
    lag.saw("c", 1, 7, 0, 0);
    assertEquals(List.of("b", "c"), lag.top(2).stream().map(RoomLag::room).toList());
    assertEquals(58, lag.totalRecords());
    lag.forgetShard(1);
    assertEquals(List.of("a"), lag.top(10).stream().map(RoomLag::room).toList());
  }
}
