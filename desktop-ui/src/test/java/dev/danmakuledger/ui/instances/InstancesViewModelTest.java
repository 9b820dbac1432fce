package dev.danmakuledger.ui.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.ui.live.ConnectionViewModel.State;
import dev.danmakuledger.ui.testing.FixtureApi;
import dev.danmakuledger.ui.testing.Harness;
import java.time.Duration;
import java.time.Instant;
import okhttp3.mockwebserver.MockResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InstancesViewModelTest {
  private final Harness h = new Harness();
  private final InstancesViewModel vm = new InstancesViewModel(h.context);

  @AfterEach
  void close() {
    h.close();
  }

  private void instances(String body) {
    h.server.enqueue(
        new MockResponse().setHeader("Content-Type", "application/json").setBody(body));
  }

  private static String instance(String id, Instant beat, String status, double rate, long subs) {
    return String.format(
        "{\"id\":\"%s\",\"address\":\"http://10.0.0.5:8080\",\"version\":\"0.1.0\","
            + "\"startedAt\":\"2026-11-30T03:00:00Z\",\"heartbeatAt\":\"%s\",\"status\":\"%s\","
            + "\"batchesPerSecond\":%s,\"subscribers\":%d}",
        id, beat, status, rate, subs);
  }

  @Test
  void listsEveryInstanceWithItsHeartbeatAgeAndCountsUpAndDown() {
    Instant now = h.clock.instant();
    instances(
        "{\"instances\":["
            + instance("i-a", now.minusSeconds(3), "UP", 4.5, 12)
            + ","
            + instance("i-b", now.minus(Duration.ofMinutes(4)), "DOWN", 0, 0)
            + "]}");
    vm.refresh();
    assertEquals(2, vm.instances().size());
    InstanceRow a = vm.instances().get(0);
    assertEquals("i-a", a.instance().id());
    assertEquals(3, a.heartbeatAgeSeconds());
    assertTrue(a.up());
    assertEquals(12, a.instance().subscribers());
    assertEquals(240, vm.instances().get(1).heartbeatAgeSeconds());
    assertEquals(1, vm.up().get());
    assertEquals(1, vm.down().get());
    assertEquals(State.LIVE, h.connection().state().get());
  }

  @Test
  void theAgeGrowsAtEveryRefresh() {
    Instant beat = h.clock.instant();
    String body = "{\"instances\":[" + instance("i-a", beat, "UP", 1, 0) + "]}";
    instances(body);
    vm.refresh();
    h.clock.advance(Duration.ofSeconds(20));
    instances(body.replace("\"UP\"", "\"DOWN\""));
    vm.refresh();
    assertEquals(20, vm.instances().get(0).heartbeatAgeSeconds());
    assertEquals(0, vm.up().get());
    assertEquals(1, vm.down().get());
  }

  @Test
  void anUnreadableRegistryIsExplainedWithoutMarkingTheServerStale() {
    h.server.enqueue(
        FixtureApi.problem(
            503,
            "redis-unavailable",
            "the instance registry in Redis cannot be read; retry later"));
    vm.refresh();
    assertTrue(vm.instances().isEmpty());
    assertTrue(!vm.problem().get().isEmpty(), vm.problem().get());
    assertTrue(h.connection().state().get() != State.STALE);
  }

  @Test
  void aHeartbeatTheConsoleCannotReadHasNoAge() {
    assertEquals(
        -1,
        InstanceRow.at(
                new dev.danmakuledger.protocol.wire.admin.InstanceList.Instance(
                    "i-a",
                    "http://x",
                    "v",
                    "2026-11-30T03:00:00Z",
                    "yesterday",
                    dev.danmakuledger.protocol.wire.admin.InstanceList.Status.UP,
                    0,
                    0),
                h.clock.instant())
            .heartbeatAgeSeconds());
  }

  @Test
  void theLastListIsRestoredFromTheHistory() {
    instances("{\"instances\":[" + instance("i-a", h.clock.instant(), "UP", 1, 2) + "]}");
    vm.refresh();
    InstancesViewModel restarted = new InstancesViewModel(h.context);
    restarted.restore();
    assertEquals(1, restarted.instances().size());
    assertEquals("i-a", restarted.instances().get(0).instance().id());
  }
}
