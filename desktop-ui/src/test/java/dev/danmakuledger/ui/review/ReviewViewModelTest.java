package dev.danmakuledger.ui.review;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import dev.danmakuledger.ui.live.ConnectionViewModel.State;
import dev.danmakuledger.ui.testing.Harness;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReviewViewModelTest {
  private final Harness h = new Harness();
  private final ReviewViewModel vm = new ReviewViewModel(h.context);

  @AfterEach
  void close() {
    h.close();
  }

  private ReviewItem loaded() throws InterruptedException {
    h.json("review.json");
    vm.refresh();
    h.server.takeRequest();
    assertEquals(1, vm.items().size());
    return vm.items().get(0);
  }

  @Test
  void approveSendsTheSeenVersionAndReloads() throws Exception {
    ReviewItem item = loaded();
    h.server.enqueue(new MockResponse().setBody("{}"));
    h.server.enqueue(new MockResponse().setBody("{\"items\":[]}"));
    vm.approve(item);
    RecordedRequest post = h.server.takeRequest();
    assertEquals("/admin/review/253389661274124290", post.getPath());
    assertEquals(
        "{\"decision\":\"APPROVE\",\"version\":4,\"reason\":null}", post.getBody().readUtf8());
    assertEquals("/admin/review", h.server.takeRequest().getPath());
    assertTrue(vm.items().isEmpty());
    assertEquals("Approved lobby #3 (ufd3b921a).", vm.message().get());
    assertFalse(vm.messageIsError().get());
    assertFalse(vm.busy().get());
  }

  @Test
  void conflictSaysSoPlainlyAndReloadsTheQueue() throws Exception {
    ReviewItem item = loaded();
    h.server.enqueue(
        new MockResponse()
            .setResponseCode(409)
            .setHeader("Content-Type", "application/problem+json")
            .setBody(Harness.read("problem-409.json")));
    h.server.enqueue(
        new MockResponse()
            .setBody(Harness.read("review.json").replace("\"version\":4", "\"version\":5")));
    vm.reject(item, "  spam ");
    RecordedRequest post = h.server.takeRequest();
    assertEquals(
        "{\"decision\":\"REJECT\",\"version\":4,\"reason\":\"spam\"}", post.getBody().readUtf8());
    assertEquals("/admin/review", h.server.takeRequest().getPath());
    assertEquals(ReviewViewModel.CONFLICT_MESSAGE, vm.message().get());
    assertTrue(vm.messageIsError().get());
    assertEquals(5, vm.items().get(0).version());
    assertEquals(State.LIVE, h.connection().state().get());
  }

  @Test
  void serverDownDuringADecisionMarksTheConsoleStale() throws Exception {
    ReviewItem item = loaded();
    h.stopServer();
    vm.approve(item);
    assertTrue(vm.messageIsError().get());
    assertTrue(vm.message().get().startsWith("Cannot reach the server"), vm.message().get());
    assertEquals(State.STALE, h.connection().state().get());
    assertEquals(1, vm.items().size());
  }
}
