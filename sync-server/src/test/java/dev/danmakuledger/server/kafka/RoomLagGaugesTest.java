package dev.danmakuledger.server.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The relay's per-room lag gauges: values follow the rooms shown, and a scrape never fails. */
class RoomLagGaugesTest {
  private static String line(String scrape, String metric, String room) {
    return scrape
        .lines()
        .filter(l -> l.startsWith(metric + "{room=\"" + room + "\",shard=\"0\"}"))
        .findFirst()
        .orElse("");
  }

  @Test
  void rowsFollowTheRoomsShownAndReadTheirNewValues() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RoomLagGauges gauges = new RoomLagGauges(registry);

    gauges.show(List.of(new RoomLag("a", 0, 5, 100), new RoomLag("b", 0, 3, 50)));
    String first = registry.scrape();
    assertEquals(
        "danmaku_kafka_relay_room_behind{room=\"a\",shard=\"0\"} 5.0",
        line(first, "danmaku_kafka_relay_room_behind", "a"),
        first);
    assertEquals(
        "danmaku_kafka_relay_room_lag_milliseconds{room=\"b\",shard=\"0\"} 50.0",
        line(first, "danmaku_kafka_relay_room_lag_milliseconds", "b"),
        first);

    gauges.show(List.of(new RoomLag("a", 0, 7, 300)));
    String second = registry.scrape();
    assertEquals(
        "danmaku_kafka_relay_room_behind{room=\"a\",shard=\"0\"} 7.0",
        line(second, "danmaku_kafka_relay_room_behind", "a"),
        second);
    assertEquals(
        "danmaku_kafka_relay_room_lag_milliseconds{room=\"a\",shard=\"0\"} 300.0",
        line(second, "danmaku_kafka_relay_room_lag_milliseconds", "a"),
        second);
    assertFalse(second.contains("room=\"b\""), second);

    gauges.show(List.of(new RoomLag("b", 0, 1, 10)));
    String third = registry.scrape();
    assertEquals(
        "danmaku_kafka_relay_room_behind{room=\"b\",shard=\"0\"} 1.0",
        line(third, "danmaku_kafka_relay_room_behind", "b"),
        third);
    assertFalse(third.contains("room=\"a\""), third);
  }

  @Test
  void scrapesWhileTheRowsAreShownAgainNeverSeeARoomTwice() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RoomLagGauges gauges = new RoomLagGauges(registry);
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService scraper = Executors.newSingleThreadExecutor();
    try {
      Future<Integer> scrapes =
          scraper.submit(
              () -> {
                int n = 0;
                while (!done.get()) {
                  registry.scrape();
                  n++;
                }
                return n;
              });
      for (int round = 0; round < 3_000; round++) {
        List<RoomLag> rooms = new ArrayList<>();
        for (int r = 0; r < 100; r++) {
          rooms.add(new RoomLag("room-" + r, 0, round + r, round));
        }
        gauges.show(rooms);
      }
      done.set(true);
      assertTrue(scrapes.get() > 0);
    } finally {
      done.set(true);
      scraper.shutdownNow();
    }
    String last = registry.scrape();
    assertEquals(
        "danmaku_kafka_relay_room_behind{room=\"room-7\",shard=\"0\"} 3006.0",
        line(last, "danmaku_kafka_relay_room_behind", "room-7"),
        last);
  }
}
