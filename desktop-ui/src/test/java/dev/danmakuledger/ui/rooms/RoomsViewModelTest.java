package dev.danmakuledger.ui.rooms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import dev.danmakuledger.ui.testing.Harness;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.mockwebserver.SocketPolicy;
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
            AdminEvent.Type.MESSAGE,
            AdminEvent.Severity.INFO,
            "d",
            "lobby",
            "new message",
            "2026-11-30T06:00:00Z",
            Map.of()));
    h.server.takeRequest();
    assertEquals("/v1/rooms/lobby/messages?after=3&limit=100", h.server.takeRequest().getPath());
    assertEquals(2, vm.tail().size());
    assertEquals("新", vm.tail().get(1).text());
  }

  @Test
  void theRelayLagShowsPerRoomAndSummedUpAndItsTroubleIsFlagged() {
    h.server.enqueue(
        new MockResponse()
            .setBody(
                "{\"rooms\":[{\"room\":\"lobby\",\"highSeq\":3,\"tombstones\":0,"
                    + "\"confirmed\":3,\"pending\":0,\"rejected\":0,\"messagesPerMinute\":1.0,"
                    + "\"relay\":{\"behind\":2,\"lagMillis\":1500}}],"
                    + "\"relay\":{\"topic\":\"danmaku.confirmed\",\"shards\":4,\"reporting\":3,"
                    + "\"reachable\":false,\"behind\":2,\"lagMaxMillis\":1500}}"));
    h.json("room-page.json");
    vm.refresh();
    assertEquals("2 (1 s)", RoomsViewModel.relayLag(vm.rooms().get(0).relay()));
    String status = vm.relayStatus().get();
    assertTrue(status.startsWith("Kafka relay to danmaku.confirmed: cannot reach Kafka"), status);
    assertTrue(status.contains("2 messages behind, the longest for 1 s"), status);
    assertTrue(status.contains("3 of 4 shards reporting"), status);
    assertTrue(vm.relayTrouble().get());
  }

  @Test
  void withoutARelayNoLagShows() {
    h.json("rooms.json");
    h.json("room-page.json");
    vm.refresh();
    assertEquals("", vm.relayStatus().get());
    assertEquals(false, vm.relayTrouble().get());
    assertEquals("—", RoomsViewModel.relayLag(vm.rooms().get(0).relay()));
    assertEquals("0", RoomsViewModel.relayLag(new RoomSummary.Relay(0, 0)));
    assertEquals("7 (250 ms)", RoomsViewModel.relayLag(new RoomSummary.Relay(7, 250)));
  }

  @Test
  void eventsForOtherRoomsDoNotTouchTheTail() {
    h.json("rooms.json");
    h.json("room-page.json");
    vm.refresh();
    int before = h.server.getRequestCount();
    h.json("rooms.json");
    vm.onEvent(
        new AdminEvent(
            AdminEvent.Type.MESSAGE,
            AdminEvent.Severity.INFO,
            "d",
            "live.1",
            "m",
            "2026-11-30T06:00:00Z",
            Map.of()));
    assertEquals(before + 1, h.server.getRequestCount());
  }

  @Test
  void selectedRoomIsFollowedOnItsMessageStream() throws Exception {
    String seq4 =
        "{\"room\":\"lobby\",\"seq\":4,\"messageId\":\"9\",\"idempotencyKey\":\"k\","
            + "\"deviceId\":\"d\",\"user\":\"u\",\"text\":\"直播中 🎉\",\"playbackMs\":null,"
            + "\"mode\":1,\"color\":65280,\"fontSize\":25,\"status\":\"CONFIRMED\","
            + "\"deviceIndex\":2}";
    h.server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest r) {
            String path = r.getRequestUrl().encodedPath();
            if (path.equals("/admin/rooms")) {
              return new MockResponse().setBody(Harness.read("rooms.json"));
            }
            if (path.equals("/v1/rooms/lobby/messages")) {
              return new MockResponse().setBody(Harness.read("room-page.json"));
            }
            if (path.equals("/v1/rooms/lobby/stream")) {
              return new MockResponse()
                  .setHeader("Content-Type", "text/event-stream")
                  .setBody("id: 4\nevent: message\ndata: " + seq4 + "\n\n")
                  .setSocketPolicy(SocketPolicy.KEEP_OPEN);
            }
            return new MockResponse().setResponseCode(404);
          }
        });
    ScheduledExecutorService streamer = Executors.newSingleThreadScheduledExecutor();
    RoomsViewModel streaming = new RoomsViewModel(h.context, streamer);
    try {
      streaming.refresh();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (streaming.tail().size() < 2 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertEquals(
          List.of("厉害了我的弹幕君！🎉", "直播中 🎉"),
          List.copyOf(streaming.tail()).stream().map(RoomMessage::text).toList());
    } finally {
      streaming.close();
      streamer.shutdownNow();
    }
    boolean askedAfter3 = false;
    for (int i = h.server.getRequestCount(); i > 0; i--) {
      RecordedRequest r = h.server.takeRequest();
      askedAfter3 |= "/v1/rooms/lobby/stream?after=3".equals(r.getPath());
    }
    assertTrue(askedAfter3, "the stream resumes after the last page");
  }
}
