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
  private static final String BEHIND = "danmaku_kafka_relay_room_behind";
  private static final String LAG = "danmaku_kafka_relay_room_lag_milliseconds";

  /** Asserts that {@code scrape} shows {@code value} for {@code room} of shard 0. */
  private static void assertShows(String scrape, String metric, String room, String value) {
    String row = metric + "{room=\"" + room + "\",shard=\"0\"}";
    String got = scrape.lines().filter(l -> l.startsWith(row)).findFirst().orElse("");
    assertEquals(row + " " + value, got, scrape);
  }

  @Test
  void rowsFollowTheRoomsShownAndReadTheirNewValues() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RoomLagGauges gauges = new RoomLagGauges(registry);

    gauges.show(List.of(new RoomLag("a", 0, 5, 100), new RoomLag("b", 0, 3, 50)));
    String first = registry.scrape();
    assertShows(first, BEHIND, "a", "5.0");
    assertShows(first, LAG, "b", "50.0");

    gauges.show(List.of(new RoomLag("a", 0, 7, 300)));
    String second = registry.scrape();
    assertShows(second, BEHIND, "a", "7.0");
    assertShows(second, LAG, "a", "300.0");
    assertFalse(second.contains("room=\"b\""), second);

    gauges.show(List.of(new RoomLag("b", 0, 1, 10)));
    String third = registry.scrape();
    assertShows(third, BEHIND, "b", "1.0");
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
    assertShows(last, BEHIND, "room-7", "3006.0");
  }
}
