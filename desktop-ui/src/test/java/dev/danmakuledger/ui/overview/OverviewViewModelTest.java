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

  @Test
  void happyPathFillsCountersAndCharts() {
    OverviewViewModel vm = new OverviewViewModel(h.context);
    h.json("overview.json");
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
