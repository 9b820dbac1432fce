package dev.danmakuledger.ui.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.ui.testing.Harness;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import okhttp3.mockwebserver.MockResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EventStreamTest {
  private final Harness h = new Harness();
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final BlockingQueue<String> seen = new LinkedBlockingQueue<>();
  private final EventStream.Listener<AdminEvent> listener =
      new EventStream.Listener<>() {
        @Override
        public void connected() {
          seen.add("connected");
        }

        @Override
        public void event(AdminEvent event) {
          seen.add(event.type() + ":" + event.message());
        }

        @Override
        public void disconnected(ApiException cause, Duration retryIn) {
          seen.add("lost:" + cause.kind() + ":" + retryIn.toMillis());
        }
      };

  @AfterEach
  void close() {
    scheduler.shutdownNow();
    h.close();
  }

  private String next() throws InterruptedException {
    String s = seen.poll(10, TimeUnit.SECONDS);
    return s == null ? "<nothing within 10 s>" : s;
  }

  private static MockResponse sse(String body) {
    return new MockResponse().setHeader("Content-Type", "text/event-stream").setBody(body);
  }

  @Test
  void deliversEventsSkipsGarbageAndReconnectsWithBackoff() throws Exception {
    h.server.enqueue(
        sse(
            ": hello\n\nevent: ALERT\ndata: {\"type\":\"ALERT\",\"severity\":\"CRITICAL\","
                + "\"deviceId\":\"venue-3\",\"room\":null,\"message\":\"fork\","
                + "\"at\":\"2026-11-30T05:48:11Z\",\"data\":{}}\n\n"
                + "event: ROOM\ndata: {not json\n\n"
                + "event: ROOM\ndata: {\"type\":\"ROOM\"}\n\n"
                + "event: DEVICE\r\ndata: {\"type\":\"DEVICE\",\"severity\":\"INFO\",\"deviceId\":"
                + "\"kiosk-1\",\"room\":null,\"message\":\"ok\",\"at\":\"2026-11-30T05:48:12Z\","
                + "\"data\":null}\r\n\r\n"));
    h.server.enqueue(new MockResponse().setResponseCode(401));
    h.server.enqueue(new MockResponse().setResponseCode(503));
    h.server.enqueue(sse(""));
    try (EventStream<AdminEvent> s =
        h.client.adminEvents(
            scheduler, new ReconnectDelays(Duration.ofMillis(1), Duration.ofMillis(4)), listener)) {
      s.start();
      assertEquals(
          List.of(
              "connected",
              "ALERT:fork",
              "DEVICE:ok",
              "lost:UNREACHABLE:1",
              "lost:UNAUTHORIZED:2",
              "lost:SERVER_ERROR:4",
              "connected",
              "lost:UNREACHABLE:1"),
          List.of(next(), next(), next(), next(), next(), next(), next(), next()));
    }
    var first = h.server.takeRequest();
    assertEquals("/admin/events", first.getPath());
    assertEquals("text/event-stream", first.getHeader("Accept"));
    assertEquals("Bearer " + Harness.TOKEN, first.getHeader("Authorization"));
  }

  @Test
  void closeStopsReconnecting() throws Exception {
    h.server.enqueue(sse("data: {}\n\n"));
    EventStream<AdminEvent> s =
        h.client.adminEvents(
            scheduler, new ReconnectDelays(Duration.ofMillis(50), Duration.ofMillis(50)), listener);
    s.start();
    assertEquals("connected", next());
    assertTrue(next().startsWith("lost:"));
    s.close();
    assertEquals(null, seen.poll(300, TimeUnit.MILLISECONDS));
  }

  @Test
  void roomStreamResumesAfterTheLastSeenSeq() throws Exception {
    String m7 =
        "{\"room\":\"lobby\",\"seq\":7,\"messageId\":\"1\",\"idempotencyKey\":\"k\","
            + "\"deviceId\":\"d\",\"user\":\"u\",\"text\":\"合影🎉\",\"playbackMs\":null,"
            + "\"mode\":1,\"color\":255,\"fontSize\":25,\"status\":\"CONFIRMED\","
            + "\"deviceIndex\":3}";
    h.server.enqueue(sse("id: 7\nevent: message\ndata: " + m7 + "\n\n"));
    h.server.enqueue(sse(""));
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    try (EventStream<RoomMessage> s =
        h.client.roomStream(
            "lobby",
            () -> 5,
            scheduler,
            new ReconnectDelays(Duration.ofMillis(1), Duration.ofMillis(1)),
            new EventStream.Listener<>() {
              @Override
              public void connected() {}

              @Override
              public void event(RoomMessage m) {
                got.add(m.seq() + ":" + m.text());
              }

              @Override
              public void disconnected(ApiException cause, Duration retryIn) {
                got.add("lost");
              }
            })) {
      s.start();
      assertEquals("7:合影🎉", got.poll(10, TimeUnit.SECONDS));
      assertEquals("lost", got.poll(10, TimeUnit.SECONDS));
      assertEquals("lost", got.poll(10, TimeUnit.SECONDS));
    }
    var first = h.server.takeRequest();
    assertEquals("/v1/rooms/lobby/stream?after=5", first.getPath());
    assertEquals(null, first.getHeader("Last-Event-ID"));
    assertEquals("7", h.server.takeRequest().getHeader("Last-Event-ID"));
  }
}
