package dev.danmakuledger.edge.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CaptureQueueTest {
  private static Pending capture(int n) {
    IdempotencyKey key =
        new IdempotencyKey("dev-1", "u1", 1_700_000_000_000L + n, String.format("%016x", n));
    return Pending.of(
        new CaptureRequest(key, "room-1", "u1", "hello " + n, 0L, 1, 0xFFFFFF, 25),
        "dev-1",
        new SecureRandom());
  }

  @Test
  void whatIsQueuedWhileALoneCommitterHoldsTheTurnReachesTheWriterWhenItIsReleased()
      throws Exception {
    CaptureQueue queue = new CaptureQueue();
    assertTrue(queue.claimIdle());
    CompletableFuture<CaptureQueue.Batch> taken = CompletableFuture.supplyAsync(queue::take);
    Pending queued = capture(1);
    queue.add(List.of(queued));
    assertStillWaiting(taken, "the writer took a batch while the lone committer held the turn");
    queue.release();
    CaptureQueue.Batch batch = taken.get(5, TimeUnit.SECONDS);
    assertEquals(List.of(queued), batch.requests());
    assertFalse(batch.stop());
  }

  @Test
  void theWriterWaitsThroughALoneCommitWithNothingQueuedAndTakesWhatIsQueuedAfter()
      throws Exception {
    CaptureQueue queue = new CaptureQueue();
    CompletableFuture<CaptureQueue.Batch> taken = CompletableFuture.supplyAsync(queue::take);
    assertTrue(queue.claimIdle());
    queue.release();
    assertStillWaiting(taken, "the writer took a batch with nothing queued");
    Pending later = capture(2);
    queue.add(List.of(later));
    assertEquals(List.of(later), taken.get(5, TimeUnit.SECONDS).requests());
  }

  private static void assertStillWaiting(
      CompletableFuture<CaptureQueue.Batch> taken, String message) throws Exception {
    try {
      CaptureQueue.Batch batch = taken.get(200, TimeUnit.MILLISECONDS);
      throw new AssertionError(message + ": " + batch);
    } catch (TimeoutException expected) {
      // still waiting, as it should
    }
  }
}
