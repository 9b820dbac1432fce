package dev.danmakuledger.ui.overview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.ui.history.HistoryStore;
import dev.danmakuledger.ui.live.ConnectionViewModel.State;
import dev.danmakuledger.ui.testing.Harness;
import java.nio.file.Path;
import java.time.Duration;
import okhttp3.mockwebserver.MockResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OverviewViewModelTest {
  private Harness h = new Harness();

  @AfterEach
  void close() {
    h.close();
  }

  /** Queues the reply of a server without {@code GET /admin/history}. */
  private void noHistory() {
    h.server.enqueue(
        new MockResponse()
            .setResponseCode(404)
            .setHeader("Content-Type", "application/problem+json")
            .setBody("{\"code\":\"not-found\",\"detail\":\"no endpoint GET /admin/history\"}"));
  }

  /**
   * A history of {@code minutes} minutes ending now: minute i from the end has 60*(i+1) records.
   */
  private String history(int minutes, int emptyFromEnd) {
    StringBuilder points = new StringBuilder();
    long newest = h.clock.millis() / 60_000 * 60_000;
    for (int i = minutes - 1; i >= 0; i--) {
      if (points.length() > 0) {
        points.append(',');
      }
      int instances = i == emptyFromEnd ? 0 : 2;
      long records = instances == 0 ? 0 : 60L * (i + 1);
      points.append(
          String.format(
              "{\"minute\":\"%s\",\"instances\":%d,\"batches\":%d,\"records\":%d,"
                  + "\"confirmed\":%d,\"pending\":0,\"duplicates\":%d,\"conflicts\":0,"
                  + "\"rejected\":0,\"subscribers\":3,\"admitMsPerBatch\":1.0,"
                  + "\"commitMsPerBatch\":2.0}",
              java.time.Instant.ofEpochMilli(newest - i * 60_000L),
              instances,
              records / 10,
              records,
              records - records / 4,
              records / 4));
    }
    return "{\"minutes\":" + minutes + ",\"points\":[" + points + "]}";
  }

  @Test
  void onOpenTheChartsShowTheClustersLastHourThenContinueLive() {
    OverviewViewModel vm = new OverviewViewModel(h.context);
    h.json("overview.json");
    h.server.enqueue(
        new MockResponse().setHeader("Content-Type", "application/json").setBody(history(60, 10)));
    vm.refresh();
    // 60 minutes, minus the running one and the one no instance sampled, then the first live sample
    assertEquals(58 + 1, vm.throughput().size());
    ChartPoint oldest = vm.throughput().get(0);
    assertEquals(60.0, oldest.value(), 1e-9, "the oldest minute had 3600 records");
    assertEquals(Duration.ofMinutes(1), oldest.step());
    assertEquals(25.0, vm.duplicateRate().get(0).value(), 1e-9);
    ChartPoint live = vm.throughput().get(vm.throughput().size() - 1);
    assertEquals(h.clock.instant(), live.at());
    assertEquals(Duration.ZERO, live.step());
    assertEquals(
        "/admin/history?minutes=60", requestPaths().get(1), "asked for the last hour on open");

    h.clock.advance(Duration.ofSeconds(2));
    h.json("overview.json");
    vm.refresh();
    assertEquals(60, vm.throughput().size(), "then only live samples are added");
    assertEquals(3, h.server.getRequestCount(), "the history is read once, on open");
  }

  @Test
  void againstAServerWithoutHistoryTheLocalSamplesOfEarlierSessionsAreShown(@TempDir Path dir) {
    h.close();
    h = new Harness(HistoryStore.open(dir, Json.mapper()));
    OverviewViewModel first = new OverviewViewModel(h.context);
    h.json("overview.json");
    noHistory();
    first.refresh();
    h.clock.advance(Duration.ofMinutes(10));
    h.json("overview.json");
    noHistory();
    OverviewViewModel second = new OverviewViewModel(h.context);
    second.refresh();
    assertEquals(2, second.throughput().size(), "the earlier session's sample and this one");
  }

  private java.util.List<String> requestPaths() {
    java.util.List<String> out = new java.util.ArrayList<>();
    int n = h.server.getRequestCount();
    for (int i = 0; i < n; i++) {
      try {
        out.add(h.server.takeRequest().getPath());
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
    return out;
  }

  @Test
  void happyPathFillsCountersAndCharts() {
    OverviewViewModel vm = new OverviewViewModel(h.context);
    h.json("overview.json");
    noHistory();
    vm.refresh();
    h.clock.advance(Duration.ofSeconds(2));
    h.server.enqueue(
        new MockResponse()
            .setBody(
                Harness.read("overview.json")
                    .replace("\"redis\":177", "\"redis\":187")
                    .replace("\"CONFIRMED\":1259", "\"CONFIRMED\":1289")
                    .replace("\"DUPLICATE\":181", "\"DUPLICATE\":191")));
    vm.refresh();
    assertEquals(187, vm.overview().get().duplicates().redis());
    assertEquals(2, vm.throughput().size());
    assertEquals(1, vm.duplicateRate().size());
    assertEquals(25.0, vm.duplicateRate().get(0).value(), 1e-9);
    assertEquals(State.LIVE, h.connection().state().get());
    assertEquals("", h.connection().banner().get());
  }

  @Test
  void badTokenSaysSoAndShowsNoData() {
    OverviewViewModel vm = new OverviewViewModel(h.context);
    h.server.enqueue(new MockResponse().setResponseCode(401));
    vm.refresh();
    assertNull(vm.overview().get());
    assertEquals(State.UNAUTHORIZED, h.connection().state().get());
    assertEquals(
        "The server refused the admin token. Check the token file or the settings. No data yet.",
        h.connection().banner().get());
  }

  @Test
  void serverDownKeepsTheLastStateWithAStaleBanner() {
    OverviewViewModel vm = new OverviewViewModel(h.context);
    h.json("overview.json");
    noHistory();
    vm.refresh();
    h.clock.advance(Duration.ofSeconds(30));
    h.stopServer();
    vm.refresh();
    vm.refresh();
    assertNotNull(vm.overview().get());
    assertEquals(310, vm.overview().get().batches());
    assertEquals(State.STALE, h.connection().state().get());
    assertEquals(
        "Cannot reach the server at "
            + h.client.endpoint().baseUrl()
            + ". Showing the last known state, stale since 06:00:00.",
        h.connection().banner().get());
  }

  @Test
  void malformedJsonKeepsTheLastStateAndSaysWhy() {
    OverviewViewModel vm = new OverviewViewModel(h.context);
    h.json("overview.json");
    noHistory();
    vm.refresh();
    h.server.enqueue(new MockResponse().setBody("<html>proxy error</html>"));
    vm.refresh();
    assertEquals(310, vm.overview().get().batches());
    assertEquals(State.STALE, h.connection().state().get());
    assertEquals(
        "The server sent a reply the console cannot read (/admin/overview). Showing the last known"
            + " state, stale since 06:00:00.",
        h.connection().banner().get());
  }

  @Test
  void chartsAndLastStateSurviveARestartWithTheServerDown(@TempDir Path dir) {
    h.close();
    h = new Harness(HistoryStore.open(dir, Json.mapper()));
    OverviewViewModel first = new OverviewViewModel(h.context);
    h.json("overview.json");
    noHistory();
    first.refresh();
    h.clock.advance(Duration.ofSeconds(2));
    h.json("overview.json");
    first.refresh();
    h.close();

    h = new Harness(HistoryStore.open(dir, Json.mapper()));
    h.clock.advance(Duration.ofMinutes(5));
    h.stopServer();
    OverviewViewModel restarted = new OverviewViewModel(h.context);
    restarted.restore();
    restarted.refresh();
    assertEquals(310, restarted.overview().get().batches());
    assertEquals(2, restarted.throughput().size());
    assertEquals(State.STALE, h.connection().state().get());
    assertEquals(
        "Cannot reach the server at "
            + h.client.endpoint().baseUrl()
            + ". Showing the last known state, stale since 06:00:02.",
        h.connection().banner().get());
  }
}
