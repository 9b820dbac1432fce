package dev.danmakuledger.ui.rooms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.ui.testing.Harness;
import java.util.List;
import java.util.Map;
import okhttp3.mockwebserver.MockResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RoomsViewModelTest {
  private final Harness h = new Harness();
  private final RoomsViewModel vm = new RoomsViewModel(h.context);

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void tailShowsOnlyConfirmedMessagesAndFollowsEvents() throws Exception {
    h.json("rooms.json");
    h.json("room-page.json");
    vm.refresh();
    assertEquals("lobby", vm.selected().get());
    assertEquals(List.of("厉害了我的弹幕君！🎉"), vm.tail().stream().map(RoomMessage::text).toList());
    h.server.takeRequest();
    assertEquals("/v1/rooms/lobby/messages?after=0&limit=100", h.server.takeRequest().getPath());

    h.json("rooms.json");
    h.server.enqueue(
        new MockResponse()
            .setBody(
                "{\"messages\":[{\"room\":\"lobby\",\"seq\":4,\"messageId\":\"1\","
                    + "\"idempotencyKey\":\"k\",\"deviceId\":\"d\",\"user\":\"u\",\"text\":\"新\","
                    + "\"playbackMs\":null,\"mode\":1,\"color\":255,\"fontSize\":25,"
                    + "\"status\":\"CONFIRMED\",\"deviceIndex\":1}],\"next\":4}"));
    vm.onEvent(
        new AdminEvent(
            "MESSAGE", "INFO", "d", "lobby", "new message", "2026-11-30T06:00:00Z", Map.of()));
    h.server.takeRequest();
    assertEquals("/v1/rooms/lobby/messages?after=3&limit=100", h.server.takeRequest().getPath());
    assertEquals(2, vm.tail().size());
    assertEquals("新", vm.tail().get(1).text());
  }

  @Test
  void eventsForOtherRoomsDoNotTouchTheTail() {
    h.json("rooms.json");
    h.json("room-page.json");
    vm.refresh();
    int before = h.server.getRequestCount();
    h.json("rooms.json");
    vm.onEvent(
        new AdminEvent("MESSAGE", "INFO", "d", "live.1", "m", "2026-11-30T06:00:00Z", Map.of()));
    assertEquals(before + 1, h.server.getRequestCount());
  }
}
